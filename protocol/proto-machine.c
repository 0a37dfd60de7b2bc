/* proto-machine.c — the machine interface's wrappers and the registry of
 * protocol families (proto-machine.h). */
#include "config.h"

#include "protocol/proto-machine.h"

#include <string.h>

extern const ProtoFamily proto_family_disco;    /* protocol/disco/disco-family.c */
extern const ProtoFamily proto_family_gossip;   /* protocol/gossip/gossip-family.c */
extern const ProtoFamily proto_family_hierarchical;   /* protocol/hierarchical/hier-family.c */
extern const ProtoFamily proto_family_pipeline;   /* protocol/pipeline/pipe-family.c */
extern const ProtoFamily proto_family_guest;   /* protocol/guest/guest-family.c */
extern const ProtoFamily proto_family_fedavg;   /* protocol/fedavg/fedavg-family.c */

static const ProtoFamily *const families[] = { &proto_family_disco, &proto_family_gossip,
                                               &proto_family_hierarchical, &proto_family_pipeline, &proto_family_guest,
                                               &proto_family_fedavg, NULL };

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
  return f ? f : &proto_family_disco;
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
proto_machine_free (ProtoMachine *m)
{
  if (!m)
    return;
  m->klass->free (m->impl);
  g_free (m);
}
