// Hostile: prints without end.
#include <cstdio>
#include <cstring>
int main() {
    static char line[65536];
    memset(line, 'x', sizeof line - 2);
    line[sizeof line - 2] = '\n';
    for (;;) fputs(line, stdout);
}
