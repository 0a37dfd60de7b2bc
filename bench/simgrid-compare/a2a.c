/* a2a.c — the all-to-all exchange in SimGrid, for bench/simgrid-compare:
 * every host sends BYTES to every other host at time 0 and receives from
 * all of them; prints the simulated makespan (the last reception).
 *
 *   a2a PLATFORM.xml BYTES [--cfg=...]
 *
 * Written against SimGrid's C API (simgrid/engine.h, actor.h, mailbox.h,
 * comm.h), as packaged by Debian 12 (libsimgrid-dev 3.32).  Not part of
 * dlsim's build: bench/simgrid-compare/run.sh compiles it. */
#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>

#include <stdio.h>
#include <stdlib.h>

static long bytes;
static size_t n_hosts;
static double last_reception;

static void
node (int argc, char **argv)
{
  size_t self = (size_t) atol (argv[1]);
  (void) argc;
  char name[32];
  sg_comm_t *comms = malloc (2 * (n_hosts - 1) * sizeof *comms);
  void **data = malloc ((n_hosts - 1) * sizeof *data);
  size_t k = 0;
  /* every reception is posted at once, so transfers to this host share its
   * downlink instead of queueing behind one another */
  snprintf (name, sizeof name, "mb-%zu", self);
  sg_mailbox_t mine = sg_mailbox_by_name (name);
  for (size_t i = 0; i + 1 < n_hosts; i++)
    comms[k++] = sg_mailbox_get_async (mine, &data[i]);
  for (size_t j = 0; j < n_hosts; j++)
    if (j != self)
      {
        snprintf (name, sizeof name, "mb-%zu", j);
        comms[k++] = sg_mailbox_put_async (sg_mailbox_by_name (name), &bytes, bytes);   /* any non-NULL payload */
      }
  sg_comm_wait_all (comms, k);
  if (simgrid_get_clock () > last_reception)
    last_reception = simgrid_get_clock ();
  free (comms);
  free (data);
}

int
main (int argc, char **argv)
{
  simgrid_init (&argc, argv);
  if (argc < 3)
    {
      fprintf (stderr, "usage: %s PLATFORM.xml BYTES\n", argv[0]);
      return 2;
    }
  simgrid_load_platform (argv[1]);
  bytes = atol (argv[2]);
  n_hosts = sg_host_count ();
  sg_host_t *hosts = sg_host_list ();
  for (size_t i = 0; i < n_hosts; i++)
    {
      char id[32];
      snprintf (id, sizeof id, "%zu", i);
      char *args[] = { (char *) "node", id, NULL };
      char name[32];
      snprintf (name, sizeof name, "node-%zu", i);
      sg_actor_create (name, sg_host_by_name (name), node, 2, args);
    }
  free (hosts);
  simgrid_run ();
  printf ("hosts %zu bytes %ld makespan %.6f\n", n_hosts, bytes, last_reception);
  return 0;
}
