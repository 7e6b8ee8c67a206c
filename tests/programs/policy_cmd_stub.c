/*
 * policy_cmd_stub.c — a policy command for tests of the command backend (src/policy/command.c).
 *
 * usage: policy_cmd_stub MODE. Reads the request from stdin (except in "noread"), then:
 *   allow, deny    answer that decision ("deny" with reason "stub-deny")
 *   reads-only     allow when the request's action is Read, else deny
 *   hang           never answer          crash     die of SIGSEGV (raised)
 *   garbage        answer something that is not a decision
 *   badexit        answer allow, then exit 3      noread    answer allow without reading
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "allow";
    static char in[1 << 20];
    size_t len = 0;
    if (strcmp(mode, "noread") != 0) {
        size_t n;
        while (len < sizeof in - 1 && (n = fread(in + len, 1, sizeof in - 1 - len, stdin)) > 0)
            len += n;
    }
    in[len] = '\0';
    if (strcmp(mode, "hang") == 0) {
        for (;;)
            pause();
    }
    if (strcmp(mode, "crash") == 0)
        raise(SIGSEGV);
    if (strcmp(mode, "garbage") == 0) {
        puts("{\"decision\": \"maybe\"}");
        return 0;
    }
    bool allow = strcmp(mode, "allow") == 0 || strcmp(mode, "badexit") == 0 ||
                 strcmp(mode, "noread") == 0 ||
                 (strcmp(mode, "reads-only") == 0 &&
                  strstr(in, "\"action\":{\"type\":\"CodeMode::Action\",\"id\":\"Read\"}") != NULL);
    printf("{\"decision\": \"%s\", \"reasons\": [\"%s\"]}\n", allow ? "allow" : "deny",
           allow ? "stub-allow" : "stub-deny");
    return strcmp(mode, "badexit") == 0 ? 3 : 0;
}
