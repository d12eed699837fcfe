/* The Cortex-M4F platform: console and exit through ARM semihosting (QEMU's
 * -semihosting-config enable=on, or a debug probe), without a C library. */
#include <stdint.h>

#include "platform.h"

#define SYS_OPEN 0x01
#define SYS_WRITE 0x05
#define SYS_EXIT 0x18
/* SYS_OPEN mode 4 is fopen's "w"; on ":tt" it is the host's standard output (SYS_WRITE0
 * would go to QEMU's stderr instead). */
#define OPEN_MODE_W 4
/* SYS_EXIT reasons: QEMU exits 0 for ApplicationExit and 1 for any other. */
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u
#define ADP_STOPPED_RUNTIME_ERROR_UNKNOWN 0x20023u

static uintptr_t semihost(uintptr_t op, uintptr_t arg) {
  register uintptr_t r0 __asm__("r0") = op;
  register uintptr_t r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

void platform_write(const char *s) {
  static uintptr_t console = (uintptr_t)-1;
  if (console == (uintptr_t)-1) {
    const char name[] = ":tt";
    uintptr_t open[3] = {(uintptr_t)name, OPEN_MODE_W, sizeof name - 1};
    console = semihost(SYS_OPEN, (uintptr_t)open);
  }
  uintptr_t len = 0;
  while (s[len] != '\0') {
    len++;
  }
  uintptr_t write[3] = {console, (uintptr_t)s, len};
  semihost(SYS_WRITE, (uintptr_t)write);
}

void platform_exit(int ok) {
  /* On 32-bit ARM the reason is the argument itself, not a parameter block. */
  uintptr_t reason = ok ? ADP_STOPPED_APPLICATION_EXIT : ADP_STOPPED_RUNTIME_ERROR_UNKNOWN;
  for (;;) {
    semihost(SYS_EXIT, reason);
  }
}
