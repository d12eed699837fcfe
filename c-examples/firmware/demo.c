/* The C firmware example: one engine at a time in a static buffer (ppg_engine_init, no
 * heap), the golden query of ppg-core/tests/golden.rs re-ranked through the C API, and
 * every value printed as `key values...` lines. Built twice by the Makefile: for the
 * Cortex-M4F (semihost.c) and for the host (host.c); tests/firmware.rs compares the two
 * outputs value by value. */
#include <stdint.h>
#include <string.h>

#include "platform.h"
#include "ppg.h"

/* Room for the largest engine below (10 items x 4 sessions x batch 16); main checks it
 * against ppg_engine_layout. */
#define ENGINE_BYTES 32768
static _Alignas(16) unsigned char engine_mem[ENGINE_BYTES];

static const double utility[10] = {4, 4, 3, 3, 2, 1, 1, 0, 0, 0};
static const uint32_t group[10] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 1};

/* A line under construction: printf would need a C library; this needs nothing. */
static char text[512];
static size_t text_len;

static void put(const char *s) {
  while (*s != '\0' && text_len + 1 < sizeof text) {
    text[text_len++] = *s++;
  }
}

static void put_digits(uint64_t v) {
  char digits[21];
  size_t n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  char s[2] = {0, 0};
  while (n > 0) {
    s[0] = digits[--n];
    put(s);
  }
}

static void put_u64(uint64_t v) {
  put(" ");
  put_digits(v);
}

static void put_i64(int64_t v) {
  put(v < 0 ? " -" : " ");
  put_digits(v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

static void begin(const char *key) {
  text_len = 0;
  put(key);
}

static void end(void) {
  put("\n");
  text[text_len] = '\0'; /* put keeps a byte free for it */
  platform_write(text);
}

static uint64_t bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

/* Stops the program with the failing call's status message. */
static void check(const char *what, ppg_status status) {
  if (status != PPG_STATUS_OK) {
    begin("error ");
    put(what);
    put(": ");
    put(ppg_status_str(status));
    end();
    platform_exit(0);
  }
}

/* An engine of the given shape in engine_mem, seeded with 42, holding `count` items
 * with ids 0..count-1. */
static ppg_engine *engine_for(size_t count, size_t sessions, size_t batch) {
  size_t size = 0, align = 0;
  check("ppg_engine_layout",
        ppg_engine_layout(PPG_METHOD_PPG, count, sessions, batch, &size, &align));
  if (size > sizeof engine_mem || align > 16) {
    begin("error engine_mem too small, needed");
    put_u64(size);
    end();
    platform_exit(0);
  }
  ppg_engine *engine = NULL;
  check("ppg_engine_init", ppg_engine_init(engine_mem, size, PPG_METHOD_PPG, count, sessions,
                                           batch, 42, &engine));
  ppg_item items[10];
  for (size_t i = 0; i < count; i++) {
    items[i].id = i;
    items[i].utility = utility[i];
    items[i].group = group[i];
  }
  check("ppg_engine_set_query", ppg_engine_set_query(engine, items, count, sessions));
  return engine;
}

/* Bad input gets the statuses of a hosted build, and the handle stays unwritten. */
static void bad_input(void) {
  size_t size = 0, align = 0;
  check("ppg_engine_layout", ppg_engine_layout(PPG_METHOD_PPG, 10, 4, 16, &size, &align));
  ppg_engine *engine = NULL;
  const struct {
    const char *key;
    ppg_status status;
  } cases[] = {
      {"status_too_small", ppg_engine_init(engine_mem, size - 1, PPG_METHOD_PPG, 10, 4, 16, 42,
                                           &engine)},
      {"status_misaligned", ppg_engine_init(engine_mem + 1, size, PPG_METHOD_PPG, 10, 4, 16,
                                            42, &engine)},
      {"status_null_out",
       ppg_engine_init(engine_mem, size, PPG_METHOD_PPG, 10, 4, 16, 42, NULL)},
      {"status_no_items",
       ppg_engine_init(engine_mem, size, PPG_METHOD_PPG, 0, 4, 16, 42, &engine)},
      {"status_unknown_kind", ppg_engine_init(engine_mem, size, 7, 10, 4, 16, 42, &engine)},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    begin(cases[i].key);
    put_u64(cases[i].status);
    end();
  }
  begin("handle_written");
  put_u64(engine != NULL);
  end();
}

static void first_samples(const char *key, ppg_sampler sampler) {
  ppg_engine *engine = engine_for(8, 2, 1);
  check("ppg_engine_set_sampler", ppg_engine_set_sampler(engine, sampler));
  for (int k = 0; k < 3; k++) {
    uint64_t ids[16];
    check("ppg_engine_sample", ppg_engine_sample(engine, 1, ids, 16));
    begin(key);
    for (size_t i = 0; i < 16; i++) {
      put_u64(ids[i]);
    }
    end();
  }
}

static void train(void) {
  ppg_engine *engine = engine_for(10, 4, 16);
  check("ppg_engine_keep_order_within_groups", ppg_engine_keep_order_within_groups(engine));
  ppg_train_config config;
  ppg_objective_config objective;
  /* The golden run is the paper's reference run, as the Rust image's. */
  check("ppg_train_config_reference", ppg_train_config_reference(&config));
  check("ppg_objective_config_default", ppg_objective_config_default(&objective));
  ppg_train_report report;
  check("ppg_train_report_default", ppg_train_report_default(&report));
  check("ppg_engine_train_builtin",
        ppg_engine_train_builtin(engine, &config, &objective, &report));
  uint64_t best[40];
  double cost = 0;
  check("ppg_engine_best", ppg_engine_best(engine, best, 40, &cost));
  begin("epochs");
  put_u64(report.epochs);
  end();
  begin("samples");
  put_u64(report.samples);
  end();
  begin("best_epoch");
  put_i64(report.best_epoch);
  end();
  begin("best_cost_bits");
  put_u64(bits(report.best_cost));
  end();
  begin("best");
  for (size_t i = 0; i < 40; i++) {
    put_u64(best[i]);
  }
  end();
  begin("cost_bits");
  put_u64(bits(cost));
  end();
}

int main(void) {
  begin("version ");
  put(ppg_version());
  end();
  bad_input();
  first_samples("uncorrected", PPG_SAMPLER_UNCORRECTED);
  first_samples("corrected", PPG_SAMPLER_CORRECTED);
  train();
  return 0;
}
