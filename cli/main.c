/* main.c — the dlsim command: dispatches to subcommands and prints the
 * top-level help.  Subcommands that are not built yet say so and exit 2. */
#include "config.h"

#include "cli/cli.h"
#include "protocol/proto-machine.h"
#include "results/res-query.h"

#include <cblas.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  const char *name;
  int (*run) (int argc, char **argv);
  const char *synopsis;
  const char *summary;
} Command;

static int cmd_families (int argc, char **argv);

static const Command commands[] = {
  { "run", cli_cmd_run, "run FILE... [-o DB] [-j N] [--set section.key=value]... [--seed N] [-q]",
    "run scenario files into a results database" },
  { "check", cli_cmd_check, "check [FILE|DIR]...",
    "run scenarios with an [expect] section; PASS/FAIL per run" },
  { "report", cli_cmd_report, "report DB [--run ID]", "summary table of the runs in a results database" },
  { "trace", cli_cmd_trace, "trace DB --run ID [--peer NAME]", "readable protocol timeline of one run" },
  { "plot", cli_cmd_plot, "plot DB KIND [--by KEY] [-o FILE.png|.svg]", "draw a figure with gnuplot" },
  { "testbed", cli_cmd_testbed, "testbed FILE [-o DB] [--set section.key=value]... [--seed N]",
    "run a scenario on real sockets and processes (loopback, or --netem namespaces)" },
  { "explore", cli_cmd_explore, "explore FILE --runs N [--faults KIND,...] [--version V] [--found DIR]",
    "randomized fault search: failures by property, shrunk to scenario files" },
  { "shrink", cli_cmd_shrink, "shrink DB --run ID -o FILE.ini",
    "shrink a recorded failing run to a minimal scenario file" },
  { "export", cli_cmd_export, "export DB --format csv|jsonl [--table T] [-o DIR]",
    "tables as CSV or JSON lines for pandas, R and spreadsheets" },
  { "export-scenario", cli_cmd_export_scenario, "export-scenario DB --run ID [-o FILE.ini]",
    "a scenario file that reproduces a recorded run" },
  { "compare", cli_cmd_compare, "compare A.db B.db [--run-a ID] [--run-b ID]",
    "two runs side by side (simulator vs testbed); exit 1 if discrete facts differ" },
  { "merge", cli_cmd_merge, "merge OUT.db IN.db... [--renumber] [--scenario FILE]",
    "combine results databases; node databases become one testbed run" },
  { "node", cli_cmd_node, "node coordinator|peer --scenario FILE ...",
    "one testbed process (dlsim node --help)" },
  { "bench", cli_cmd_bench, "bench MODEL [OPTIONS]", "built-in benchmarks (phold, scale, record, fuzz-frames)" },
  { "families", cmd_families, "families", "the protocol families, each with what it is" },
};

/* dlsim families: the registry's families in its order, each with its
 * description (protocol/proto-machine.c), the first the default */
static int
cmd_families (int argc, char **argv)
{
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- the protocol families");
  g_option_context_set_summary (ctx,
      "Prints one line per family that [protocol] family takes: its name and\n"
      "what it is.  The first is the default.");
  if (!cli_parse_options ("families", ctx, &argc, &argv))
    return CLI_EXIT_USAGE;
  if (argc > 1)
    {
      cli_error ("families", "takes no arguments (dlsim families --help)");
      return CLI_EXIT_USAGE;
    }
  for (guint i = 0; proto_family_at (i); i++)
    printf ("%-14s %s%s\n", proto_family_at (i)->name, proto_family_description (proto_family_at (i)),
            i == 0 ? " (the default)" : "");
  return CLI_EXIT_OK;
}

static void
print_usage (FILE *out)
{
  /* the families come from the registry (protocol/proto-machine.c), so a
   * family added there is listed here without an edit */
  g_autofree char *families = proto_family_names (", ", " and ");
  fprintf (out,
           "Usage: dlsim COMMAND [OPTIONS]\n"
           "\n"
           "dlsim %s: a discrete-event simulator and testbed for decentralized-learning\n"
           "round protocols.  Families ([protocol] family; dlsim families says\n"
           "what each is):\n  %s.\n"
           "\n"
           "Commands:\n", PACKAGE_VERSION, families);
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-16s %s%s\n", commands[i].name, commands[i].summary,
             commands[i].run ? "" : " (not implemented yet)");
  fprintf (out,
           "\n"
           "Options:\n"
           "  -h, --help     show this help (dlsim COMMAND --help for a command)\n"
           "  --version      print the version\n"
           "\n"
           "Exit status: 0 success; 1 the work failed (run error, failed expectation,\n"
           "benchmark cross-check); 2 usage error, bad input or a command not\n"
           "implemented yet; 130 interrupted "
           "(Ctrl-C or SIGTERM).\n");
}

static int
not_implemented (const Command *c, int argc, char **argv)
{
  gboolean help = FALSE;
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
      help = TRUE;
  FILE *out = help ? stdout : stderr;
  fprintf (out, "Usage: dlsim %s\n\n%s.\n\n", c->synopsis, c->summary);
  fprintf (out, "Not implemented yet in dlsim %s: this command exits with status 2.\n",
           PACKAGE_VERSION);
  return CLI_EXIT_USAGE;
}

/* Huge pages for malloc's heap.  glibc reads its tunables only at
 * start-up, so dlsim execs itself once with glibc.malloc.hugetlb=1 put
 * before what GLIBC_TUNABLES held (glibc 2.35 and later: malloc then asks
 * for transparent huge pages with madvise, which a kernel in `madvise`
 * mode grants only to those who ask).  At 100 000 push-pull nodes the
 * world's records spread over 900 MB and page walks dominate
 * (docs/performance.md, "huge pages").  Results do not depend on it.
 * DLSIM_HUGETLB set to anything (0 by convention; the exec sets 1, so it
 * happens once) or a hugetlb setting already in GLIBC_TUNABLES leave the
 * process as it is; a failed exec too.  Under valgrind set it to 0: the
 * exec would leave the tool. */
static void
exec_with_huge_pages (char **argv)
{
  g_autofree char *t = g_strdup (g_getenv ("GLIBC_TUNABLES"));
  if (g_getenv ("DLSIM_HUGETLB") || (t && strstr (t, "glibc.malloc.hugetlb")))
    return;
  g_autofree char *v = t && *t ? g_strconcat ("glibc.malloc.hugetlb=1:", t, NULL)
                               : g_strdup ("glibc.malloc.hugetlb=1");
  if (!g_setenv ("GLIBC_TUNABLES", v, TRUE) || !g_setenv ("DLSIM_HUGETLB", "1", TRUE))
    return;
  /* the link's target, not the link: exec'd as /proc/self/exe, the
   * process would be named "exe" (ps, pkill dlsim) */
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  execv (self ? self : "/proc/self/exe", argv);
  g_unsetenv ("GLIBC_TUNABLES");   /* the exec failed: run on as before */
  if (t)
    g_setenv ("GLIBC_TUNABLES", t, TRUE);
}

int
main (int argc, char **argv)
{
  exec_with_huge_pages (argv);
  /* Single-threaded BLAS: results do not depend on the thread count, and
   * idle OpenBLAS threads do not spin beside the simulation.  Parallelism
   * comes from worker processes (-j). */
  openblas_set_num_threads (1);
  /* a connection is used by one thread at a time (the run's writer thread,
   * then the main thread): SQLite's per-connection mutexes are not needed */
  res_init ();
  if (argc < 2)
    {
      print_usage (stderr);
      return CLI_EXIT_USAGE;
    }
  const char *cmd = argv[1];
  if (strcmp (cmd, "--help") == 0 || strcmp (cmd, "-h") == 0 || strcmp (cmd, "help") == 0)
    {
      print_usage (stdout);
      return CLI_EXIT_OK;
    }
  if (strcmp (cmd, "--version") == 0)
    {
      printf ("dlsim %s (build %s)\n", PACKAGE_VERSION, DL_BUILD);
      return CLI_EXIT_OK;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (cmd, commands[i].name) == 0)
      {
        if (commands[i].run == NULL)
          return not_implemented (&commands[i], argc - 1, argv + 1);
        g_autofree char *prg = g_strdup_printf ("dlsim %s", cmd);
        g_set_prgname (prg);
        return commands[i].run (argc - 1, argv + 1);
      }
  fprintf (stderr, "dlsim: unknown command '%s' (try 'dlsim --help')\n", cmd);
  return CLI_EXIT_USAGE;
}
