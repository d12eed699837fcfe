/* Reset and fault handling of the Cortex-M4F image: the vector table, .data and .bss
 * set up from the symbols of mps2-an386.ld, the FPU switched on, then main(). */
#include <stdint.h>

#include "platform.h"

int main(void);

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;

void reset_handler(void);
void fault_handler(void);

/* Coprocessor Access Control Register: full access to CP10 and CP11 (the FPU). */
#define CPACR (*(volatile uint32_t *)0xE000ED88u)

/* Initial stack pointer, reset, then NMI, HardFault, MemManage, BusFault, UsageFault:
 * a fault reports and exits non-zero instead of hanging. */
static const struct {
  uint32_t *stack;
  void (*handlers[6])(void);
} vectors __attribute__((section(".vectors"), used)) = {
    &_estack,
    {reset_handler, fault_handler, fault_handler, fault_handler, fault_handler,
     fault_handler},
};

void fault_handler(void) {
  platform_write("fault: the image took a processor fault\n");
  platform_exit(0);
}

void reset_handler(void) {
  /* The hard-float ABI uses FPU registers from the first function call on. */
  CPACR |= 0xFu << 20;
  __asm__ volatile("dsb\n\tisb" ::: "memory");
  for (uint32_t *src = &_sidata, *dst = &_sdata; dst < &_edata;) {
    *dst++ = *src++;
  }
  for (uint32_t *dst = &_sbss; dst < &_ebss;) {
    *dst++ = 0;
  }
  platform_exit(main() == 0);
}
