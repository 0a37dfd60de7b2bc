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

const ProtoFamily *
proto_family_at (guint i)
{
  return i < G_N_ELEMENTS (families) ? families[i] : NULL;
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
    if (families[i] == f)
      return descriptions[i];
  g_return_val_if_fail (FALSE, "");
  return "";
}

const ProtoFamily *
proto_family_lookup (const char *name)
{
  for (guint i = 0; families[i]; i++)
    if (strcmp (families[i]->name, name) == 0)
      return families[i];
  return NULL;
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
  return f ? f : families[0];   /* the registry's first, disco: the default family */
}

ProtoMachine *
proto_machine_wrap (const ProtoMachineClass *klass, void *impl)
{
  ProtoMachine *m = g_new (ProtoMachine, 1);
  m->klass = klass;
  m->impl = impl;
  return m;
}

void
proto_machine_view (const ProtoMachine *m, ProtoPeerView *out)
{
  memset (out, 0, sizeof *out);
  out->error = "";
  if (m->klass->view)
    m->klass->view (m->impl, out);
}

LearnWeights *
proto_machine_model (const ProtoMachine *m)
{
  return m->klass->model ? m->klass->model (m->impl) : NULL;
}

guint
proto_machine_received_count (const ProtoMachine *m, ProtoMsgType type)
{
  return m->klass->received_count ? m->klass->received_count (m->impl, type) : 0;
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
