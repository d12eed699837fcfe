/* The host platform: stdout and exit(3), so that demo.c runs on a PC for comparison. */
#include <stdio.h>
#include <stdlib.h>

#include "platform.h"

void platform_write(const char *s) { fputs(s, stdout); }

void platform_exit(int ok) {
  fflush(stdout);
  exit(ok ? 0 : 1);
}
