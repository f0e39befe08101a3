// Hostile: a build that includes the solutions' secret spec, so that the
// compiler quotes its hidden checks (or the program carries them).
#include "@SECRET@"
int main() { return 0; }
