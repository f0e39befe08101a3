// A program that defines environ itself, a variable of its own where
// libc's start-up and getenv read the environment: refused, as any
// definition of a name the runtimes use is.
#include <stdio.h>

char **environ;

int main() {
    printf("%p\n", (void *)environ);
    return 0;
}
