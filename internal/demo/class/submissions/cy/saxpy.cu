// demo: echo "1024 of 1024 right"
__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x
#error expected a ";"
}
