/* proto-msg-registry.c — the message tables, taken from the family
 * registry (each ProtoFamily's `msgs`, proto-machine.h: a family registers
 * its types where it registers itself) plus the replicated coordinator's
 * and the session layer's, and the lookup of a type byte's class (proto-msg-class.h).  The tables
 * are checked the first time anything asks (every run, every test): a
 * family whose type lacks a name, a codec arm or a size function, or that
 * claims a byte or a name another type has, stops the program there. */
#include "config.h"

#include <pthread.h>

#include "protocol/proto-machine.h"
#include "protocol/proto-msg-class.h"

#include <string.h>

/* the messages' error domain (here, where the first check may raise it) */
G_DEFINE_QUARK (proto-error-quark, proto_error)

/* the tables no family owns: the replicated coordinator's, which runs
 * under any family, and the session layer's, which any family may speak */
extern const ProtoMsgFamily proto_msgs_replica;        /* protocol/replica/replica-msgs.c */
extern const ProtoMsgFamily proto_msgs_session;        /* protocol/session/session-msgs.c */
static const ProtoMsgFamily *const shared_tables[] = { &proto_msgs_replica, &proto_msgs_session };

/* every family's table (its ProtoFamily's `msgs`, in the family registry's
 * order: proto-machine.c), then the shared ones; NULL-ended */
#define MAX_TABLES 64
static const ProtoMsgFamily *families[MAX_TABLES + 1];

static const ProtoMsgClass *by_type[PROTO_MSG_TYPE_LIMIT];
static ProtoMsgType known[PROTO_MSG_TYPE_LIMIT];   /* the declared types, by byte */
static guint n_known;

const ProtoMsgFamily *const *
proto_msg_families (void)
{
  proto_msg_class_of (0);
  return families;
}

gboolean
proto_msg_family_check (const ProtoMsgFamily *f, GError **error)
{
  for (guint i = 0; i < f->n_types; i++)
    {
      const ProtoMsgClass *c = &f->types[i];
      const char *missing = c->name == NULL ? "a name"
                            : c->wire_type == NULL || strncmp (c->wire_type, "(y", 2) != 0
                              ? "a wire type starting with the type byte"
                            : c->encode == NULL ? "an encoder"
                            : c->decode == NULL ? "a decoder"
                            : c->size_key == NULL ? "a size function" : NULL;
      if (missing)
        {
          g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, "family %s: message type %u (%s) has no %s",
                       f->name, c->type, c->name ? c->name : "unnamed", missing);
          return FALSE;
        }
      if ((guint) c->role >= PROTO_MSG_N_ROLES)
        {
          g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, "family %s: %s has role %u, which is none",
                       f->name, c->name, (guint) c->role);
          return FALSE;
        }
      if (c->type >= PROTO_MSG_TYPE_LIMIT)
        {
          g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, "family %s: %s has type %u, beyond the type byte",
                       f->name, c->name, c->type);
          return FALSE;
        }
      for (guint j = 0; j < i; j++)
        if (f->types[j].type == c->type || g_ascii_strcasecmp (f->types[j].name, c->name) == 0)
          {
            g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, "family %s: %s and %s share a type or a name",
                         f->name, f->types[j].name, c->name);
            return FALSE;
          }
    }
  for (guint i = 0; i < f->n_fault_targets; i++)
    {
      const ProtoMsgFaultTarget *t = &f->fault_targets[i];
      if (t->type >= PROTO_MSG_TYPE_LIMIT || !t->dir || (strcmp (t->dir, "to") != 0 && strcmp (t->dir, "from") != 0))
        {
          g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED,
                       "family %s: fault target %u (type %u) needs a type byte and \"to\" or \"from\"", f->name, i,
                       t->type);
          return FALSE;
        }
    }
  return TRUE;
}

const ProtoMsgFamily *
proto_msg_family_named (const char *name)
{
  proto_msg_class_of (0);   /* the tables are built when first asked */
  for (guint k = 0; families[k]; k++)
    if (strcmp (families[k]->name, name) == 0)
      return families[k];
  return NULL;
}

guint
proto_msg_family_n_fault_targets (const ProtoMsgFamily *f)
{
  return f->n_fault_targets ? f->n_fault_targets : 2 * f->n_types;
}

void
proto_msg_family_fault_target (const ProtoMsgFamily *f, guint i, const char **type, const char **dir)
{
  g_return_if_fail (i < proto_msg_family_n_fault_targets (f));
  if (f->n_fault_targets)
    {
      *type = proto_msg_type_name (f->fault_targets[i].type);
      *dir = f->fault_targets[i].dir;
    }
  else
    {
      *type = f->types[i / 2].name;
      *dir = i % 2 ? "from" : "to";
    }
}

static void
registry_build (void)
{
  guint n = 0;
  for (guint i = 0; proto_family_at (i); i++)
    if (proto_family_at (i)->msgs)
      {
        g_assert (n < MAX_TABLES);
        families[n++] = proto_family_at (i)->msgs;
      }
  for (guint i = 0; i < G_N_ELEMENTS (shared_tables); i++)
    {
      g_assert (n < MAX_TABLES);
      families[n++] = shared_tables[i];
    }
  for (guint k = 0; families[k]; k++)
    {
      const ProtoMsgFamily *f = families[k];
      g_autoptr (GError) error = NULL;
      if (!proto_msg_family_check (f, &error))
        g_error ("message registry: %s", error->message);
      for (guint i = 0; i < f->n_types; i++)
        {
          const ProtoMsgClass *c = &f->types[i];
          if (by_type[c->type])
            g_error ("message registry: type byte %u is both %s and %s (family %s)", c->type,
                     by_type[c->type]->name, c->name, f->name);
          for (guint t = 0; t < PROTO_MSG_TYPE_LIMIT; t++)
            if (by_type[t] && g_ascii_strcasecmp (by_type[t]->name, c->name) == 0)
              g_error ("message registry: two types are named %s (family %s)", c->name, f->name);
          by_type[c->type] = c;
        }
    }
  for (ProtoMsgType t = 0; t < PROTO_MSG_TYPE_LIMIT; t++)
    if (by_type[t])
      known[n_known++] = t;
  /* a family's fault targets may be another's types it speaks (DISCO's
   * admission messages), but each must be declared */
  for (guint k = 0; families[k]; k++)
    for (guint i = 0; i < families[k]->n_fault_targets; i++)
      if (!by_type[families[k]->fault_targets[i].type])
        g_error ("message registry: family %s targets type byte %u, which no family declares", families[k]->name,
                 families[k]->fault_targets[i].type);
}

gboolean
proto_msg_type_has_labels (ProtoMsgType type)
{
  const ProtoMsgClass *c = proto_msg_class_of (type);
  return c && c->label;
}

const char *
proto_msg_label (const ProtoMsg *msg, gsize *len)
{
  const ProtoMsgClass *c = proto_msg_class_of (msg->type);
  return c && c->label ? c->label (msg, len) : NULL;
}

gboolean
proto_msg_label_is (const ProtoMsg *msg, const char *label)
{
  gsize len = 0;
  const char *l = proto_msg_label (msg, &len);
  return l && strlen (label) == len && memcmp (l, label, len) == 0;
}

const ProtoMsgClass *
proto_msg_class_of (ProtoMsgType type)
{
  /* pthread_once, not g_once_init_enter: ThreadSanitizer sees the one
   * (explore's worker threads all ask), not GLib's atomics */
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once (&once, registry_build);
  return type < PROTO_MSG_TYPE_LIMIT ? by_type[type] : NULL;
}

gboolean
proto_msg_type_known (ProtoMsgType type)
{
  return proto_msg_class_of (type) != NULL;
}

ProtoMsgRole
proto_msg_type_role (ProtoMsgType type)
{
  const ProtoMsgClass *c = proto_msg_class_of (type);
  return c ? c->role : PROTO_MSG_ROLE_NONE;
}

guint
proto_msg_n_types (void)
{
  proto_msg_class_of (0);
  return n_known;
}

ProtoMsgType
proto_msg_type_at (guint i)
{
  g_return_val_if_fail (i < proto_msg_n_types (), 0);
  return known[i];
}

const char *
proto_msg_type_name (ProtoMsgType type)
{
  const ProtoMsgClass *c = proto_msg_class_of (type);
  return c ? c->name : "?";
}

gboolean
proto_msg_type_from_name (const char *name, ProtoMsgType *out)
{
  for (ProtoMsgType t = 0; t < PROTO_MSG_TYPE_LIMIT; t++)
    {
      const ProtoMsgClass *c = proto_msg_class_of (t);
      if (c && g_ascii_strcasecmp (name, c->name) == 0)
        {
          *out = t;
          return TRUE;
        }
    }
  return FALSE;
}
