/* plan-check.h — for the tests of explore/ and of a family's fault search
 * (test-explore.c, test-fedavg.c): a shipped file's path, the message a
 * plan line drops or delays, and a check of the plans a family's scenario
 * draws.  Uses Check's ck_assert. */
#pragma once

#include <glib.h>

/* the file rel under the source tree ($DLSIM_SRCDIR, or .) (transfer full) */
char *plan_check_path (const char *rel);

/* the type and direction of a plan line's drop or delay, or FALSE */
gboolean plan_check_msg_of_line (const char *line, char **type, char **dir);

/* Draws 40 plans of drops and delays for the shipped file rel, whose
 * family must be family: each line that names a message names one of the
 * family's fault targets (and only those), and starts with must_prefix
 * unless it is NULL.  Returns how many lines named a message. */
guint plan_check_family (const char *rel, const char *family, const char *must_prefix);
