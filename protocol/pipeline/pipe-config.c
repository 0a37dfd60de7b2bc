/* pipe-config.c — the pipeline's block ranges from its config
 * (pipe-config.h): the listed ones, or the even split of the blocks. */
#include "config.h"

#include "protocol/pipeline/pipe-config.h"

guint
pipe_config_n_ranges (const PipeConfig *c)
{
  if (c->n_ranges > 0)
    return c->n_ranges;
  return MAX (c->servers / MAX (c->replicas, 1), 1);
}

void
pipe_config_range (const PipeConfig *c, guint i, guint *start, guint *end)
{
  if (c->n_ranges > 0)
    {
      g_return_if_fail (i < c->n_ranges);
      *start = c->range_start[i];
      *end = c->range_end[i];
      return;
    }
  /* the even split: servers / replicas ranges, server i serving range
   * i / replicas; the first blocks % ranges ranges one block longer */
  guint replicas = MAX (c->replicas, 1);
  guint ranges = pipe_config_n_ranges (c);
  guint r = (i / replicas) % ranges;
  guint base = c->blocks / ranges, extra = c->blocks % ranges;
  *start = r * base + MIN (r, extra);
  *end = *start + base + (r < extra ? 1 : 0);
}
