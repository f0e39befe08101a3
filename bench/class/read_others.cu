// Hostile: reads a classmate's file, the gradebook and the solutions.
#include <cstdio>
#include <cerrno>
#include <cstring>
static void attempt(const char* path) {
    FILE* f = fopen(path, "r");
    if (!f) { printf("read %s: %s\n", path, strerror(errno)); return; }
    char buf[64] = {0};
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    printf("read %s: GOT %zu bytes: %s\n", path, n, buf);
}
int main() {
    attempt("@CLASSMATE@");
    attempt("@GRADEBOOK@");
    attempt("@SOLUTION@");
    return 0;
}
