/* cli.h — subcommands of the dlsim command and their shared conventions.
 *
 * Exit codes: 0 success; 1 the work failed (a run error, a failed
 * expectation, a benchmark cross-check); 2 usage error or a subcommand that
 * this build does not implement yet. */
#pragma once

#include "results/res-db.h"
#include "runner/runner-progress.h"
#include "scenario/sim-scenario.h"
#include "testbed/testbed.h"

#include <glib.h>

G_BEGIN_DECLS

enum {
  CLI_EXIT_OK = 0,
  CLI_EXIT_FAILURE = 1,
  CLI_EXIT_USAGE = 2,
};

/* the folders dlsim check searches when given no FILE or DIR: scenarios/
 * and each family's own, protocol/FAMILY/scenarios/ (CLI_CHECK_FAMILY_TOP,
 * then each folder of it that has CLI_CHECK_DEFAULT_DIR) */
#define CLI_CHECK_DEFAULT_DIR "scenarios"
#define CLI_CHECK_FAMILY_TOP "protocol"
#define CLI_CHECK_DEFAULT_DIRS CLI_CHECK_DEFAULT_DIR " and " CLI_CHECK_FAMILY_TOP "/*/" CLI_CHECK_DEFAULT_DIR

int cli_cmd_bench (int argc, char **argv);
int cli_cmd_run (int argc, char **argv);
int cli_cmd_check (int argc, char **argv);
int cli_cmd_report (int argc, char **argv);
int cli_cmd_trace (int argc, char **argv);
int cli_cmd_plot (int argc, char **argv);
int cli_cmd_testbed (int argc, char **argv);
int cli_cmd_node (int argc, char **argv);
int cli_cmd_compare (int argc, char **argv);
int cli_cmd_merge (int argc, char **argv);
int cli_cmd_explore (int argc, char **argv);
/* dlsim explore --localize (cmd-localize.c): prints the curve; the exit status */
int cli_explore_localize (const char *path, char **sets, gint64 seed, guint runs, guint points, guint jobs,
                          double certain, const char *out);
int cli_cmd_export_scenario (int argc, char **argv);
int cli_cmd_shrink (int argc, char **argv);
int cli_cmd_export (int argc, char **argv);

/* The testbed's runs of one command (cmd-testbed.c), as `run` shows a
 * sweep (runner-progress.h): a line rewritten in place on a terminal, else
 * status lines on stderr every DLSIM_PROGRESS_INTERVAL seconds; and the
 * runs whose expectations passed or failed.  _init / _clear (which prints
 * the last line) on caller memory. */
typedef struct {
  const char *cmd;              /* "testbed" or "check" */
  RunnerProgress *progress;
  RunnerProgressMode mode;
  guint n_runs, job;            /* every file's runs; the one going */
  gint64 t0_us;
  guint passed, failed;
} CliTestbedRuns;
void cli_testbed_runs_init (CliTestbedRuns *r, const char *cmd, guint n_runs);
void cli_testbed_runs_clear (CliTestbedRuns *r);
/* The runs of one file: every point and repeat of s (testbed_run_point),
 * printing each run's line and counting it in runs; a warning first if a
 * run that hangs would wait long before it is stalled.  netem: --queue
 * and --congestion-control (testbed_run_scenario; NULL the defaults). */
int cli_testbed_scenario (const SimScenario *s, char **sets, gint64 seed, TestbedNetwork network,
                          const TestbedNetemOptions *netem, ResDb *db, CliTestbedRuns *runs);

/* check-testbed.c: dlsim check --testbed over the scenario files `files`
 * (seed -1: each file's own; output NULL: a temporary database). */
int cli_check_testbed (GPtrArray *files, char **sets, gint64 seed, gboolean netem, const char *output,
                       const char *junit, const char *tap);

/* cli-util.c: the checked runs of db_path as JUnit XML and/or TAP
 * (either path may be NULL): export_check_reports (export/export.h). */
gboolean cli_write_check_reports (const char *db_path, const char *junit, const char *tap, GError **error);

/* cmd-export-scenario.c: the text of a scenario file that reproduces run
 * `run` of db_path (export_scenario_text, export/export.h), after printing
 * its warning if any; NULL after printing why.  With timeline non-NULL the
 * timeline lines go there as "timeline.WHEN=ACTION" instead of into the
 * text; without with_expect no [expect] section is written. */
char *cli_export_scenario_text (const char *db_path, gint64 run, GPtrArray *timeline, gboolean with_expect);

/* Opens an existing results database to read it (res_db_open_read: a
 * killed run's journal rolled back, a writer's lock waited for); on
 * failure prints why ("no such results database", "not a dlsim results
 * database") and returns NULL. */
struct sqlite3 *cli_open_results (const char *cmd, const char *path);

/* res_db_open for a command that writes path; when it fails because of the
 * folder or the file, the error says which and why
 * (res_db_open_explained). */
ResDb *cli_db_open (const char *path, GError **error);
/* The same; waiting (path) is called once if another process is writing
 * the file (res_db_open_wait). */
ResDb *cli_db_open_wait (const char *path, void (*waiting) (const char *path), GError **error);

/* g_option_context_parse of ctx over *argc, *argv for command cmd; on an
 * option it cannot read prints "dlsim CMD: why" (cli_error, GLib's
 * message) and returns FALSE, after which the command exits with
 * CLI_EXIT_USAGE. */
gboolean cli_parse_options (const char *cmd, GOptionContext *ctx, int *argc, char ***argv);

/* A command on one recorded run, `DB --run ID [-o FILE.ini]`
 * (export-scenario, shrink): its name, help texts and usage error. */
typedef struct {
  const char *cmd;
  const char *parameter;     /* the usage line after the command's name */
  const char *summary;
  const char *run_doc;       /* --run's help */
  const char *output_doc;    /* -o's help */
  gboolean need_output;      /* -o is required */
  const char *missing;       /* the error when DB, --run ID (or -o) is missing */
} CliRunCommand;

/* Parses such a command's line into *db, *run and *output (NULL without
 * -o; the caller frees both); on a bad line prints why and returns
 * CLI_EXIT_USAGE, else CLI_EXIT_OK. */
int cli_parse_run_command (const CliRunCommand *c, int argc, char **argv, char **db, gint64 *run, char **output);

/* --set's help: what every command that takes it says of VALUE */
#define CLI_SET_PATHS "; a relative path in VALUE is taken from the scenario file's folder, as in the file"

/* Checks every --set of sets (NULL-ended, or NULL) is one SECTION.KEY=VALUE
 * argument; at the first that is not (`--set peers.count 4` gives
 * "peers.count" and a file "4") prints why and returns FALSE: before the
 * files are looked at, so the error is about --set. */
gboolean cli_check_sets (const char *cmd, char **sets);


/* (transfer full) t as it may be printed to a terminal: a control
 * character (C0, DEL, C1) and a byte of invalid UTF-8 as \xNN (C1 as
 * \u0080...), so that text from a file or a database (a scenario name, a
 * guest's note) cannot move the cursor, clear the screen or retitle the
 * window.  keep_lines: newlines and tabs stay.  NULL for NULL.  Every
 * print of such text goes through it. */
char *cli_shown (const char *t, gboolean keep_lines);
/* Is t printed as it is (cli_shown would change nothing, newlines
 * included)? */
gboolean cli_is_shown (const char *t);

/* Prints "dlsim CMD: message" to stderr, through cli_shown. */
void cli_error (const char *cmd, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

G_END_DECLS
