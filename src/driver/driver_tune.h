/* driver_tune.h -- --tune and the tuned-schedule cache in a compilation
 * (driver_tune.c; the tuner itself is src/tune). */
#ifndef DIDEROT_DRIVER_DRIVER_TUNE_H
#define DIDEROT_DRIVER_DRIVER_TUNE_H

#include "backend/backend.h"
#include "driver/options.h"
#include "schedule/schedule.h"
#include "tune/tune.h"

/* What the tuner needs of the environment and the machine, read once
 * (main.c driver_read_env calls this): the cache and temporary
 * directories from XDG_CACHE_HOME, HOME and TMPDIR, the run environment
 * (environ less DIDEROT_SCHED_*), the CPU model and count. */
TuneEnv driver_tune_env(Arena *a, char **environ_);

/* Usage errors of --tune and --tune-args (exit 2), before compiling;
 * NULL when fine. */
const char *driver_tune_check_options(const DriverOptions *o);

/* After driver_schedule_finish: the cache's entry over the schedule
 * (source CACHE; a plain compile, --dump=schedule), or with --tune the
 * search (source TUNER), then the build with *to (to->emit holds the
 * schedule). Returns the exit status. dump_only: no build, no tuning
 * (--dump=schedule reads the cache only). */
int driver_tune_build(Arena *a, IrModule *low, const DriverOptions *o, const TuneEnv *env,
                      const char *cflags, Schedule *s, TargetOptions *to, bool dump_only);

#endif
