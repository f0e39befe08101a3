// Hostile: writes outside its folder: /tmp, a classmate's file, the gradebook.
#include <cstdio>
#include <cerrno>
#include <cstring>
static void attempt(const char* path, const char* mode) {
    FILE* f = fopen(path, mode);
    if (!f) { printf("write %s: %s\n", path, strerror(errno)); return; }
    fputs("pwned\n", f);
    fclose(f);
    printf("write %s: DONE\n", path);
}
int main() {
    attempt("/tmp/lessons-pwned", "w");
    attempt("@CLASSMATE@", "w");
    attempt("@GRADEBOOK@", "a");
    return 0;
}
