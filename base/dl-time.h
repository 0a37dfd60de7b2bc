/* dl-time.h — simulated time: 64-bit integer nanoseconds.
 *
 * There is no floating-point time in the engine or the protocol machines.
 * DL_TIME_NEVER is larger than every real instant and absorbs additions. */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef int64_t DlTime;

#define DL_TIME_NEVER ((DlTime) INT64_MAX)

#define DL_NS  ((DlTime) 1)
#define DL_US  ((DlTime) 1000)
#define DL_MS  ((DlTime) 1000000)
#define DL_S   ((DlTime) 1000000000)
#define DL_MIN ((DlTime) 60 * DL_S)
#define DL_H   ((DlTime) 3600 * DL_S)

/* a + b, saturating at DL_TIME_NEVER (and at 0 below for negative b).
 * NEVER + anything is NEVER. */
static inline DlTime
dl_time_add (DlTime a, DlTime b)
{
  if (a == DL_TIME_NEVER || b == DL_TIME_NEVER)
    return DL_TIME_NEVER;
  if (b > 0 && a > DL_TIME_NEVER - b)
    return DL_TIME_NEVER;
  if (b < 0 && a < INT64_MIN - b)
    return INT64_MIN;
  return a + b;
}

/* k x t for a duration t >= 0 (a negative one gives 0), saturating at
 * DL_TIME_NEVER: a timeout waited k times (the scenario's bounds keep the
 * real ones far below it). */
static inline DlTime
dl_time_mul (DlTime t, uint64_t k)
{
  if (t <= 0 || k == 0)
    return 0;
  if (k > (uint64_t) (DL_TIME_NEVER / t))
    return DL_TIME_NEVER;
  return t * (DlTime) k;
}

/* Seconds as a double, for reports and the results database only. */
static inline double
dl_time_to_s (DlTime t)
{
  return (double) t / (double) DL_S;
}

/* Formats t as "12.345678s" (or "never") into buf, returns buf. */
#define DL_TIME_STR_LEN 32
char *dl_time_format (DlTime t, char buf[DL_TIME_STR_LEN]);

G_END_DECLS
