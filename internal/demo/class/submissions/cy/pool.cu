// demo: echo "allocated 100 blocks from the pool"; exit 1
int main() { return 1; }
