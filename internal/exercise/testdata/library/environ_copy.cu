// An honest program that reads its environment through environ: the
// linker copies libc's variable into the program (a copy relocation of
// __environ) and exports its aliases environ and _environ at the same
// address, in libc's version, with no relocation of their own. Nothing
// of the program's runs there: the inspection must let it through.
#include <stdio.h>

extern char **environ;

int main() {
    int n = 0;
    for (char **e = environ; *e; e++) n++;
    fprintf(stderr, "%d variables\n", n);
    return 0;
}
