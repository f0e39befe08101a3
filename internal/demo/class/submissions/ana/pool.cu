// demo: echo "allocated 100 blocks from the pool"; echo "freed 100 blocks"
int main() { return 0; }
