/* dl-time.c — formatting simulated time for humans (traces, messages). */
#include "config.h"

#include "base/dl-time.h"

#include <stdio.h>

char *
dl_time_format (DlTime t, char buf[DL_TIME_STR_LEN])
{
  if (t == DL_TIME_NEVER)
    {
      g_strlcpy (buf, "never", DL_TIME_STR_LEN);
      return buf;
    }
  const char *sign = t < 0 ? "-" : "";
  uint64_t a = t < 0 ? (uint64_t) (-(t + 1)) + 1 : (uint64_t) t;
  snprintf (buf, DL_TIME_STR_LEN, "%s%" G_GUINT64_FORMAT ".%06" G_GUINT64_FORMAT "s",
            sign, a / (uint64_t) DL_S, (a % (uint64_t) DL_S) / 1000);
  return buf;
}
