/* proto-machine.c — the machine interface's wrappers and the registry of
 * protocol families (proto-machine.h). */
#include "config.h"

#include "protocol/proto-machine.h"

#include <string.h>

/* The family registry: one line a family, in the order of the help's lists
 * (X (name, what) stands for proto_family_name, the ProtoFamily its
 * folder's *-family.c defines, and what `dlsim families` says it is, in
 * one line).  A family's line here and its include line in
 * protocol/local.mk are all it adds outside its folder (tools/family-diff). */
#define PROTO_FAMILIES(X) \
  X (disco, "DISCO: a coordinator admits peers, which exchange models all-to-all") \
  X (gossip, "sparsified gossip: each peer averages with a few neighbours a step") \
  X (hierarchical, "cluster heads: members send to their head, heads exchange means") \
  X (pipeline, "Petals' inference chain: servers hold blocks, clients send tokens") \
  X (guest, "a protocol run by an external process over a line protocol") \
  X (fedavg, "federated averaging: FedAvg's server, FedBuff and FedAsync") \
  /* (the list's end) */

#define PROTO_FAMILY_DECLARE(name, what) extern const ProtoFamily proto_family_##name;
#define PROTO_FAMILY_ENTRY(name, what) &proto_family_##name,
#define PROTO_FAMILY_WHAT(name, what) what,
PROTO_FAMILIES (PROTO_FAMILY_DECLARE)
static const ProtoFamily *const families[] = { PROTO_FAMILIES (PROTO_FAMILY_ENTRY) NULL };
static const char *const descriptions[] = { PROTO_FAMILIES (PROTO_FAMILY_WHAT) NULL };

/* ---- a family's defaults: the hooks its data fields stand for ---- */

static ProtoObsKind
begins_with_list (const ProtoConfig *cfg)
{
  (void) cfg;
  return PROTO_OBS_ROUND_LIST;
}

static ProtoObsKind
begins_with_start (const ProtoConfig *cfg)
{
  (void) cfg;
  return PROTO_OBS_ROUND_START;
}

static gboolean
never_excludes (const ProtoConfig *cfg, guint *retries)
{
  (void) cfg;
  *retries = 0;
  return FALSE;
}

static gboolean
yes (const ProtoConfig *cfg)
{
  (void) cfg;
  return TRUE;
}

static gboolean
no (const ProtoConfig *cfg)
{
  (void) cfg;
  return FALSE;
}

/* f with every hook set: a hook the family left NULL answers its field */
static void
complete (ProtoFamily *f)
{
  g_assert (f->round_begins == 0 || f->round_begins == PROTO_OBS_ROUND_LIST
            || f->round_begins == PROTO_OBS_ROUND_START);
  if (!f->round_begins_with)
    f->round_begins_with = f->round_begins == PROTO_OBS_ROUND_START ? begins_with_start : begins_with_list;
  if (!f->excludes_after_retries)
    f->excludes_after_retries = never_excludes;
  if (!f->promises_agreement)
    f->promises_agreement = f->agreement ? yes : no;
  if (!f->syncs_late_joiners)
    f->syncs_late_joiners = f->model_sync ? yes : no;
  if (!f->peer_state_names && f->peer_state_name_at)
    {
      /* once per run, held by the registry's table for good */
      const char **names = g_new0 (const char *, f->n_peer_states + 1);
      for (guint i = 0; i < f->n_peer_states; i++)
        names[i] = f->peer_state_name_at (i);
      f->peer_state_names = names;
    }
  f->n_peer_states = f->peer_state_names ? g_strv_length ((char **) f->peer_state_names) : 0;
}

/* The registry's counters, each name once, NULL-ended: a second family
 * declaring a name declares the same rule */
static const ProtoCounter *all_counters[PROTO_MAX_COUNTERS + 1];

static const ProtoCounter *
find_counter (const char *name)
{
  for (guint i = 0; all_counters[i]; i++)
    if (strcmp (all_counters[i]->name, name) == 0)
      return all_counters[i];
  return NULL;
}

static void
gather_counters (void)
{
  guint n = 0;
  for (guint i = 0; families[i]; i++)
    for (const ProtoCounter *c = families[i]->counters; c && c->name; c++)
      {
        const ProtoCounter *same = find_counter (c->name);
        if (same)
          {
            g_assert (same->kind == c->kind && same->rule == c->rule && same->value == c->value
                      && same->coordinator_only == c->coordinator_only);
            continue;
          }
        g_assert (n < PROTO_MAX_COUNTERS);
        all_counters[n++] = c;
      }
}

/* The families as the registry hands them out: completed, once. */
static const ProtoFamily *const *
completed (void)
{
  static ProtoFamily table[G_N_ELEMENTS (families) - 1];
  static const ProtoFamily *list[G_N_ELEMENTS (families)];
  static gsize done = 0;
  if (g_once_init_enter (&done))
    {
      for (guint i = 0; families[i]; i++)
        {
          table[i] = *families[i];
          complete (&table[i]);
          list[i] = &table[i];
        }
      gather_counters ();
      g_once_init_leave (&done, 1);
    }
  return list;
}

const ProtoFamily *
proto_family_at (guint i)
{
  return i < G_N_ELEMENTS (families) ? completed ()[i] : NULL;
}

char *
proto_family_names (const char *sep, const char *last)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; families[i]; i++)
    g_string_append_printf (s, "%s%s", i == 0 ? "" : families[i + 1] ? sep : last, families[i]->name);
  return g_string_free (s, FALSE);
}

const char *
proto_family_description (const ProtoFamily *f)
{
  for (guint i = 0; families[i]; i++)
    if (completed ()[i] == f || families[i] == f)
      return descriptions[i];
  g_return_val_if_fail (FALSE, "");
  return "";
}

const ProtoFamily *
proto_family_lookup (const char *name)
{
  for (guint i = 0; families[i]; i++)
    if (strcmp (families[i]->name, name) == 0)
      return completed ()[i];
  return NULL;
}

const ProtoCounter *
proto_counter_at (guint i)
{
  completed ();
  return i < PROTO_MAX_COUNTERS ? all_counters[i] : NULL;
}

const ProtoCounter *
proto_counter_lookup (const char *name)
{
  completed ();
  return find_counter (name);
}

gboolean
proto_family_serving_state (const ProtoFamily *f, const char *state)
{
  for (guint i = 0; state && f->serving_states && f->serving_states[i]; i++)
    if (strcmp (f->serving_states[i], state) == 0)
      return TRUE;
  return FALSE;
}

const ProtoFamily *
proto_family_of (const ProtoConfig *cfg)
{
  const ProtoFamily *f = proto_family_lookup (cfg->family);
  return f ? f : completed ()[0];   /* the registry's first, disco: the default family */
}

/* ---- machines ---- */

void
proto_machine_base_init (ProtoMachineBase *b, const char *const *state_names, guint state)
{
  memset (b, 0, sizeof *b);
  b->state = state;
  b->state_names = state_names;
  b->deadline = DL_TIME_NEVER;
}

ProtoMachine *
proto_machine_wrap (const ProtoMachineClass *klass, void *impl)
{
  ProtoMachine *m = g_new0 (ProtoMachine, 1);
  m->klass = klass;
  m->impl = impl;
  return m;
}

ProtoMachine *
proto_machine_new (const ProtoMachineClass *klass, ProtoMachineBase *base)
{
  g_return_val_if_fail (klass->handle && klass->free && base->state_names, NULL);
  ProtoMachine *m = g_new0 (ProtoMachine, 1);
  m->klass = klass;
  m->impl = base;
  m->base = base;
  return m;
}

void
proto_machine_view (const ProtoMachine *m, ProtoPeerView *out)
{
  memset (out, 0, sizeof *out);
  out->error = "";
  const ProtoMachineBase *b = m->base;
  if (!m->klass->view && !(b && b->settled_states))
    return;
  if (b)
    {
      out->connected = b->connected;
      out->rounds_done = b->rounds_done;
      out->error = b->error ? b->error : "";
      out->settled = (b->settled_states & PROTO_STATE_BIT (b->state)) != 0;
      out->failed = (b->failed_states & PROTO_STATE_BIT (b->state)) != 0;
    }
  if (m->klass->view)
    m->klass->view (m->impl, out);
}

LearnWeights *
proto_machine_model (const ProtoMachine *m)
{
  if (m->klass->model)
    return m->klass->model (m->impl);
  return m->base ? m->base->model : NULL;
}

guint
proto_machine_received_count (const ProtoMachine *m, ProtoMsgType type)
{
  if (m->klass->received_count)
    return m->klass->received_count (m->impl, type);
  return m->base && type < PROTO_MSG_N_TYPES ? m->base->received[type] : 0;
}

void
proto_machine_reseed (ProtoMachine *m, guint64 salt)
{
  if (m->klass->reseed)
    m->klass->reseed (m->impl, salt);
}

void
proto_machine_free (ProtoMachine *m)
{
  if (!m)
    return;
  m->klass->free (m->impl);
  g_free (m);
}
