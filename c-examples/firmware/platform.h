/* What demo.c needs from where it runs: semihost.c on the Cortex-M4F, host.c on a PC.
 * The same demo.c is built for both, so the tests compare one program's two outputs. */
#ifndef PPG_FIRMWARE_PLATFORM_H
#define PPG_FIRMWARE_PLATFORM_H

/* Writes the NUL-terminated string `s` to the console. */
void platform_write(const char *s);

/* Ends the program: exit status 0 when `ok`, 1 otherwise. */
void platform_exit(int ok) __attribute__((noreturn));

#endif
