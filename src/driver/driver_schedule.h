/* driver_schedule.h -- filling the schedule record of a compilation
 * (driver_schedule.c). */
#ifndef DIDEROT_DRIVER_DRIVER_SCHEDULE_H
#define DIDEROT_DRIVER_DRIVER_SCHEDULE_H

#include <stdbool.h>

#include "backend/backend.h"
#include "driver/options.h"
#include "schedule/schedule.h"
#include "tune/tune.h"

/* The --schedule file and the flags into s (before the middle end). False
 * with the messages printed and *status set (1: the file, 2: a flag). */
bool driver_schedule_begin(Arena *a, const DriverOptions *o, bool force_bsp, bool no_loop_lanes,
                           Schedule *s, int *status);
/* The defaults over the facts of `low` and the constraints, then the
 * EmitOptions fields the schedule decides (eo holds the rest: target,
 * precision, exec, ...). False with the messages printed and *status set. */
bool driver_schedule_finish(Arena *a, IrModule *low, const DriverOptions *o, Schedule *s,
                            EmitOptions *eo, int *status);

/* A tuned choice (src/tune) over a finished schedule, as source src with
 * reason, where the user set nothing (flag or file), checked by the same
 * rules: false, with why and s unchanged, when they refuse it (a cache
 * entry is then ignored, never trusted). */
bool driver_schedule_overlay(Arena *a, IrModule *low, const DriverOptions *o, Schedule *s,
                             EmitOptions *eo, const TuneChoice *c, SchedSource src,
                             const char *reason, const char **why);

#endif
