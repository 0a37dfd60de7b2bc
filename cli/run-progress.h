/* run-progress.h — the sweep's progress moved to runner/runner-progress.h
 * (issue 34 §4: cli/ parses and prints).  What is left is the one name
 * `dlsim explore` (cli/cmd-explore.c) still reads it by; a command that
 * prints progress includes runner/runner-progress.h. */
#pragma once

#include "runner/runner-progress.h"

/* runner_progress_interval_from_env */
static inline gint64
cli_progress_interval_from_env (void)
{
  return runner_progress_interval_from_env ();
}
