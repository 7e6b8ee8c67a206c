/*
 * main.c — the sluice command line: dispatches to one file per subcommand.
 */
#include <stdio.h>
#include <string.h>

#include "sluice/sluice.h"

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("sluice %s\n", SLUICE_VERSION);
        return 0;
    }
    fprintf(stderr, "usage: sluice --version\n");
    return 2;
}
