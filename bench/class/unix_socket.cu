// Hostile: connects to a Unix socket outside its folder, by path and in
// the abstract namespace (a docker.sock or a session bus would be an
// escape), and to the loopback network.
#include <cstdio>
#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>
static void attempt(const char* path, bool abstract) {
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (s < 0) { printf("socket %s: %s\n", path, strerror(errno)); return; }
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    socklen_t len = sizeof(sa_family_t) + strlen(path);
    if (abstract) memcpy(a.sun_path + 1, path, strlen(path)), len += 1;
    else strncpy(a.sun_path, path, sizeof a.sun_path - 1);
    if (connect(s, (struct sockaddr*)&a, len) == 0) printf("connect %s: DONE\n", path);
    else printf("connect %s: %s\n", path, strerror(errno));
    close(s);
}
int main() {
    attempt("@SOCKET@", false);
    attempt("lessons-bench", true);
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in in;
    memset(&in, 0, sizeof in);
    in.sin_family = AF_INET;
    in.sin_port = htons(47123);
    in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (u >= 0 && sendto(u, "x", 1, 0, (struct sockaddr*)&in, sizeof in) == 1) printf("udp 127.0.0.1: sent\n");
    else printf("udp 127.0.0.1: %s\n", strerror(errno));
    return 0;
}
