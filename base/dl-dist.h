/* dl-dist.h — probability distributions as scenario files write them.
 *
 *   constant(x)  or a bare x     uniform(a, b)        normal(mean, sd)
 *   lognormal(median, sigma)     exponential(mean)    pareto(scale, shape)
 *   gamma(shape, scale)          weibull(scale, shape)
 *
 * The location/scale arguments carry the unit of the value (a duration, a
 * rate, ...); sigma and shape are plain numbers.  Values are held in the
 * unit's base unit (ns, bit/s, bytes, 1/s) as doubles.  Sampling uses GSL's
 * samplers on a DlRandom stream.  Shape: a plain value type (no allocation). */
#pragma once

#include "base/dl-random.h"
#include "base/dl-time.h"
#include "base/dl-units.h"

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  DL_DIST_CONSTANT,
  DL_DIST_UNIFORM,
  DL_DIST_NORMAL,
  DL_DIST_LOGNORMAL,
  DL_DIST_EXPONENTIAL,
  DL_DIST_PARETO,
  DL_DIST_GAMMA,
  DL_DIST_WEIBULL,     /* P(X > x) = exp(-(x/scale)^shape); measured P2P session lengths
                          follow it (Stutzbach and Rejaie, IMC 2006) */
} DlDistKind;

typedef struct {
  DlDistKind kind;
  DlUnitKind unit;
  double a;   /* constant x, uniform a, mean, median, exp mean, pareto scale, gamma shape, weibull scale */
  double b;   /* uniform b, sd, sigma, pareto shape, gamma scale, weibull shape; unused otherwise */
} DlDist;

gboolean dl_dist_parse (const char *text, DlUnitKind unit, DlDist *out, GError **error);
DlDist dl_dist_constant (DlUnitKind unit, double x);

double dl_dist_sample (const DlDist *d, DlRandom *r);
/* A sample as a duration: rounded to whole ns, negative samples become 0. */
DlTime dl_dist_sample_time (const DlDist *d, DlRandom *r);

/* Theoretical moments; INFINITY where they do not exist (pareto). */
double dl_dist_mean (const DlDist *d);
double dl_dist_variance (const DlDist *d);

/* (transfer full) The distribution in its text form, values in base units. */
char *dl_dist_to_string (const DlDist *d);

G_END_DECLS
