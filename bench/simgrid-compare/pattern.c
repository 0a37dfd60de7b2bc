/* pattern.c — any set of transfers in SimGrid, for bench/simgrid-compare:
 * reads lines "SRC DST BYTES START" (host indices, bytes, seconds) from
 * standard input; each transfer is put from node-SRC to node-DST at START,
 * every host posts all its receptions at once; prints the simulated time of
 * the last reception.
 *
 *   pattern PLATFORM.xml < TRANSFERS [--cfg=...]
 *
 * Written against SimGrid's C API (simgrid/engine.h, actor.h, mailbox.h,
 * comm.h), as packaged by Debian 12 (libsimgrid-dev 3.32).  Not part of
 * dlsim's build: bench/simgrid-compare/validate.sh compiles it. */
#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>

#include <stdio.h>
#include <stdlib.h>

typedef struct {
  long src, dst, bytes;
  double start;
} Transfer;

static Transfer *transfers;
static size_t n_transfers;
static double last_reception;

static void
sender (int argc, char **argv)
{
  const Transfer *t = &transfers[atol (argv[1])];
  (void) argc;
  if (t->start > 0)
    sg_actor_sleep_for (t->start);
  char name[32];
  snprintf (name, sizeof name, "mb-%ld", t->dst);
  sg_mailbox_put (sg_mailbox_by_name (name), &transfers, t->bytes);   /* any non-NULL payload */
}

static void
receiver (int argc, char **argv)
{
  long self = atol (argv[1]);
  (void) argc;
  size_t n = 0;
  for (size_t i = 0; i < n_transfers; i++)
    n += transfers[i].dst == self;
  if (n == 0)
    return;
  char name[32];
  snprintf (name, sizeof name, "mb-%ld", self);
  sg_mailbox_t mine = sg_mailbox_by_name (name);
  sg_comm_t *comms = malloc (n * sizeof *comms);
  void **data = malloc (n * sizeof *data);
  for (size_t i = 0; i < n; i++)
    comms[i] = sg_mailbox_get_async (mine, &data[i]);
  sg_comm_wait_all (comms, n);
  if (simgrid_get_clock () > last_reception)
    last_reception = simgrid_get_clock ();
  free (comms);
  free (data);
}

int
main (int argc, char **argv)
{
  simgrid_init (&argc, argv);
  if (argc < 2)
    {
      fprintf (stderr, "usage: %s PLATFORM.xml < TRANSFERS\n", argv[0]);
      return 2;
    }
  simgrid_load_platform (argv[1]);
  size_t cap = 1024;
  transfers = malloc (cap * sizeof *transfers);
  Transfer t;
  while (scanf ("%ld %ld %ld %lf", &t.src, &t.dst, &t.bytes, &t.start) == 4)
    {
      if (n_transfers == cap)
        transfers = realloc (transfers, (cap *= 2) * sizeof *transfers);
      transfers[n_transfers++] = t;
    }
  size_t n_hosts = sg_host_count ();
  for (size_t i = 0; i < n_hosts; i++)
    {
      char id[32], name[32];
      snprintf (id, sizeof id, "%zu", i);
      snprintf (name, sizeof name, "node-%zu", i);
      char *args[] = { (char *) "receiver", id, NULL };
      sg_actor_create ("receiver", sg_host_by_name (name), receiver, 2, args);
    }
  for (size_t i = 0; i < n_transfers; i++)
    {
      char id[32], name[32];
      snprintf (id, sizeof id, "%zu", i);
      snprintf (name, sizeof name, "node-%ld", transfers[i].src);
      char *args[] = { (char *) "sender", id, NULL };
      sg_actor_create ("sender", sg_host_by_name (name), sender, 2, args);
    }
  simgrid_run ();
  printf ("transfers %zu makespan %.6f\n", n_transfers, last_reception);
  free (transfers);
  return 0;
}
