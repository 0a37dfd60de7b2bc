/* dl-dist.c — parsing and sampling the distributions a scenario's values
 * take (docs/user-guide.md: constant, uniform, normal, ...).
 * Samplers are GSL's (gsl_ran_*): well tested, deterministic for a given
 * generator state. */
#include "config.h"

#include "base/dl-dist.h"
#include "base/dl-error.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <string.h>

typedef struct {
  const char *name;
  DlDistKind kind;
  int n_args;
  gboolean a_has_unit;
  gboolean b_has_unit;
  const char *signature;
} DistSpec;

static const DistSpec specs[] = {
  { "constant", DL_DIST_CONSTANT, 1, TRUE, FALSE, "constant(x)" },
  { "uniform", DL_DIST_UNIFORM, 2, TRUE, TRUE, "uniform(a, b)" },
  { "normal", DL_DIST_NORMAL, 2, TRUE, TRUE, "normal(mean, sd)" },
  { "lognormal", DL_DIST_LOGNORMAL, 2, TRUE, FALSE, "lognormal(median, sigma)" },
  { "exponential", DL_DIST_EXPONENTIAL, 1, TRUE, FALSE, "exponential(mean)" },
  { "pareto", DL_DIST_PARETO, 2, TRUE, FALSE, "pareto(scale, shape)" },
  { "gamma", DL_DIST_GAMMA, 2, FALSE, TRUE, "gamma(shape, scale)" },
  { "weibull", DL_DIST_WEIBULL, 2, TRUE, FALSE, "weibull(scale, shape)" },
};

DlDist
dl_dist_constant (DlUnitKind unit, double x)
{
  return (DlDist) { .kind = DL_DIST_CONSTANT, .unit = unit, .a = x, .b = 0 };
}

static gboolean
check_params (const DistSpec *spec, const char *text, DlDist *d, GError **error)
{
  const char *why = NULL;
  switch (d->kind)
    {
    case DL_DIST_CONSTANT:
      break;
    case DL_DIST_UNIFORM:
      if (d->a > d->b)
        why = "needs a <= b";
      break;
    case DL_DIST_NORMAL:
      if (d->b < 0)
        why = "needs sd >= 0";
      break;
    case DL_DIST_LOGNORMAL:
      if (d->a <= 0 || d->b < 0)
        why = "needs median > 0 and sigma >= 0";
      break;
    case DL_DIST_EXPONENTIAL:
      if (d->a <= 0)
        why = "needs mean > 0";
      break;
    case DL_DIST_PARETO:
      if (d->a <= 0 || d->b <= 0)
        why = "needs scale > 0 and shape > 0";
      break;
    case DL_DIST_GAMMA:
      if (d->a <= 0 || d->b <= 0)
        why = "needs shape > 0 and scale > 0";
      break;
    case DL_DIST_WEIBULL:
      if (d->a <= 0 || d->b <= 0)
        why = "needs scale > 0 and shape > 0";
      break;
    }
  if (why)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_RANGE, "'%s': %s %s", text, spec->signature, why);
      return FALSE;
    }
  return TRUE;
}

gboolean
dl_dist_parse (const char *text, DlUnitKind unit, DlDist *out, GError **error)
{
  g_autofree char *s = g_strstrip (g_strdup (text ? text : ""));
  char *open = strchr (s, '(');

  if (open == NULL)
    {
      double x;
      if (!dl_parse_quantity (unit, s, &x, error))
        return FALSE;
      *out = dl_dist_constant (unit, x);
      return TRUE;
    }

  gsize name_len = (gsize) (open - s);
  g_autofree char *name = g_strstrip (g_strndup (s, name_len));
  const DistSpec *spec = NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (specs); i++)
    if (strcmp (name, specs[i].name) == 0)
      spec = &specs[i];
  if (spec == NULL)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_PARSE,
                   "'%s': unknown distribution '%s' (expected constant, uniform, normal, "
                   "lognormal, exponential, pareto, gamma or weibull)", s, name);
      return FALSE;
    }
  gsize len = strlen (s);
  if (s[len - 1] != ')')
    {
      g_set_error (error, DL_ERROR, DL_ERROR_PARSE, "'%s': missing ')' (expected %s)", s, spec->signature);
      return FALSE;
    }
  g_autofree char *inner = g_strndup (open + 1, (gsize) (s + len - 1 - (open + 1)));
  g_auto (GStrv) args = g_strsplit (inner, ",", -1);
  if ((int) g_strv_length (args) != spec->n_args || strchr (inner, '(') || strchr (inner, ')'))
    {
      g_set_error (error, DL_ERROR, DL_ERROR_PARSE, "'%s': expected %s", s, spec->signature);
      return FALSE;
    }

  DlDist d = { .kind = spec->kind, .unit = unit };
  double vals[2] = { 0, 0 };
  for (int i = 0; i < spec->n_args; i++)
    {
      gboolean has_unit = i == 0 ? spec->a_has_unit : spec->b_has_unit;
      g_autoptr (GError) local = NULL;
      if (!dl_parse_quantity (has_unit ? unit : DL_UNIT_NUMBER, args[i], &vals[i], &local))
        {
          g_set_error (error, DL_ERROR, local->code, "'%s': argument %d of %s: %s",
                       s, i + 1, spec->signature, local->message);
          return FALSE;
        }
    }
  d.a = vals[0];
  d.b = vals[1];
  if (!check_params (spec, s, &d, error))
    return FALSE;
  *out = d;
  return TRUE;
}

double
dl_dist_sample (const DlDist *d, DlRandom *r)
{
  switch (d->kind)
    {
    case DL_DIST_CONSTANT:
      return d->a;
    case DL_DIST_UNIFORM:
      return d->a == d->b ? d->a : gsl_ran_flat (r, d->a, d->b);
    case DL_DIST_NORMAL:
      return d->a + gsl_ran_gaussian_ziggurat (r, d->b);
    case DL_DIST_LOGNORMAL:
      return gsl_ran_lognormal (r, log (d->a), d->b);
    case DL_DIST_EXPONENTIAL:
      return dl_random_exponential (r, d->a);
    case DL_DIST_PARETO:
      return gsl_ran_pareto (r, d->b, d->a);
    case DL_DIST_GAMMA:
      return gsl_ran_gamma (r, d->a, d->b);
    case DL_DIST_WEIBULL:
      return gsl_ran_weibull (r, d->a, d->b);
    }
  g_return_val_if_reached (0);
}

DlTime
dl_dist_sample_time (const DlDist *d, DlRandom *r)
{
  double x = dl_dist_sample (d, r);
  if (!(x > 0))
    return 0;
  if (x >= (double) DL_TIME_NEVER)
    return DL_TIME_NEVER - 1;
  return (DlTime) llround (x);
}

double
dl_dist_mean (const DlDist *d)
{
  switch (d->kind)
    {
    case DL_DIST_CONSTANT: return d->a;
    case DL_DIST_UNIFORM: return (d->a + d->b) / 2;
    case DL_DIST_NORMAL: return d->a;
    case DL_DIST_LOGNORMAL: return d->a * exp (d->b * d->b / 2);
    case DL_DIST_EXPONENTIAL: return d->a;
    case DL_DIST_PARETO: return d->b > 1 ? d->b * d->a / (d->b - 1) : INFINITY;
    case DL_DIST_GAMMA: return d->a * d->b;
    case DL_DIST_WEIBULL: return d->a * tgamma (1 + 1 / d->b);
    }
  g_return_val_if_reached (NAN);
}

double
dl_dist_variance (const DlDist *d)
{
  switch (d->kind)
    {
    case DL_DIST_CONSTANT: return 0;
    case DL_DIST_UNIFORM: return (d->b - d->a) * (d->b - d->a) / 12;
    case DL_DIST_NORMAL: return d->b * d->b;
    case DL_DIST_LOGNORMAL:
      {
        double s2 = d->b * d->b;
        return (exp (s2) - 1) * d->a * d->a * exp (s2);
      }
    case DL_DIST_EXPONENTIAL: return d->a * d->a;
    case DL_DIST_PARETO:
      return d->b > 2 ? d->a * d->a * d->b / ((d->b - 1) * (d->b - 1) * (d->b - 2)) : INFINITY;
    case DL_DIST_GAMMA: return d->a * d->b * d->b;
    case DL_DIST_WEIBULL:
      {
        double g1 = tgamma (1 + 1 / d->b);
        return d->a * d->a * (tgamma (1 + 2 / d->b) - g1 * g1);
      }
    }
  g_return_val_if_reached (NAN);
}

char *
dl_dist_to_string (const DlDist *d)
{
  const DistSpec *spec = NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (specs); i++)
    if (specs[i].kind == d->kind)
      spec = &specs[i];
  g_assert (spec);
  if (spec->n_args == 1)
    return g_strdup_printf ("%s(%.17g)", spec->name, d->a);
  return g_strdup_printf ("%s(%.17g, %.17g)", spec->name, d->a, d->b);
}
