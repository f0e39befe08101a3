// demo: echo "allocated 0 blocks from the pool"; exit 1
int main() {
    // TODO: allocate 100 blocks from the stream's pool, then free them.
    return 0;
}
