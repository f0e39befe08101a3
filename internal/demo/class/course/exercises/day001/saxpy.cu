// demo: echo "0 of 1024 right"
#include <cstdio>

__global__ void saxpy(int n, float a, const float* x, float* y) {
    // TODO: y[i] = a * x[i] + y[i] for this thread's i, when i < n.
}

int main() { return 0; }
