/* pipe-keys.c — the pipeline family's scenario keys (README.md beside it)
 * and how it configures itself from them: the chain's blocks and servers,
 * the sessions, the forwarding, and the configurations that cannot run (an
 * empty block range, a block no range covers, a range past the last block,
 * a range with no server).  Exported through proto_family_pipeline's
 * `keys` (pipe-family.c). */
#include "config.h"

#include "protocol/pipeline/pipe-config.h"
#include "protocol/proto-keys.h"
#include "protocol/proto-message.h"
#include "base/dl-units.h"

#include <string.h>

/* servers: a count (*count, *n_ranges = 0) or ranges FIRST-LAST (inclusive
 * blocks), comma-separated, at most PIPE_MAX_RANGES of them (starts,
 * ends: half-open, may be NULL) */
static gboolean
parse_servers (const char *v, guint *count, guint *n_ranges, guint16 *starts, guint16 *ends, GError **error)
{
  guint n = 0;
  if (!strchr (v, '-') && proto_key_parse_uint (v, &n))
    {
      if (count)
        *count = n;
      if (n_ranges)
        *n_ranges = 0;
      return TRUE;
    }
  g_auto (GStrv) parts = g_strsplit (v, ",", -1);
  guint k = 0;
  for (guint i = 0; parts[i]; i++)
    {
      g_strstrip (parts[i]);
      char *dash = strchr (parts[i], '-');
      guint a = 0, b = 0;
      if (!dash || dash == parts[i])
        {
          g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED,
                       "'%s': expected a count of servers or block ranges FIRST-LAST, e.g. 0-39, 40-79", parts[i]);
          return FALSE;
        }
      *dash = '\0';
      if (!proto_key_parse_uint (parts[i], &a) || !proto_key_parse_uint (dash + 1, &b))
        {
          g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, "'%s-%s': a range is two block numbers, FIRST-LAST",
                       parts[i], dash + 1);
          return FALSE;
        }
      if (b < a)
        {
          g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED,
                       "range %u-%u is empty (its last block is before its first)", a, b);
          return FALSE;
        }
      if (k >= PIPE_MAX_RANGES || b >= G_MAXUINT16)
        {
          g_set_error (error, PROTO_ERROR, PROTO_ERROR_MALFORMED, "at most %u ranges of blocks below %u",
                       PIPE_MAX_RANGES, G_MAXUINT16);
          return FALSE;
        }
      if (starts)
        starts[k] = (guint16) a;
      if (ends)
        ends[k] = (guint16) (b + 1);
      k++;
    }
  if (count)
    *count = k;
  if (n_ranges)
    *n_ranges = k;
  return TRUE;
}

static gboolean
check_servers (const char *v, GError **error)
{
  return parse_servers (v, NULL, NULL, NULL, NULL, error);
}

static gboolean
check_forwarding (const char *v, GError **error)
{
  return proto_key_check_words (v, "client", "next-peer", error);
}

static gboolean
check_client_copy (const char *v, GError **error)
{
  return proto_key_check_words (v, "full", "hash", error);
}

static const ProtoKey rows[] = {
  { "protocol", "blocks", "80", PROTO_KEY_UINT, "pipeline only: transformer blocks of the model" },
  { "protocol", "servers", "4", PROTO_KEY_OWN, "pipeline only: servers (the peers after the clients), as a count (an even split of blocks over servers / replicas ranges) or one block range each, FIRST-LAST, e.g. 0-39, 40-79", .check = check_servers },
  { "protocol", "replicas", "1", PROTO_KEY_UINT, "pipeline only, with a count of servers: servers per range", 1, PROTO_KEY_PEERS_MAX },
  { "protocol", "compute_per_block", "1ms", PROTO_KEY_DIST_DUR, "pipeline only: one block's compute for one token at speed 1 (a duration or a distribution)" },
  { "protocol", "hidden_size", "16KiB", PROTO_KEY_SIZE, "pipeline only: bytes of hidden states per token" },
  { "protocol", "steps", "32", PROTO_KEY_UINT, "pipeline only: tokens each session generates", 1, 1000000 },
  { "protocol", "sessions", "1", PROTO_KEY_UINT, "pipeline only: clients p1..pN, one session each (peers.count defaults to sessions + servers)", 1, PROTO_KEY_PEERS_MAX },
  { "protocol", "forwarding", "client", PROTO_KEY_OWN, "pipeline only: client | next-peer: the client relays every hop, or servers also push their result to the next server", .check = check_forwarding },
  { "protocol", "client_copy", "full", PROTO_KEY_OWN, "pipeline only, with next-peer: full | hash: the client relays each hop's hidden states, or only their hash to a server that gets a push (the full copy when it asks: dlsim's extension of the proposal)", .check = check_client_copy },
  { "protocol", "family_hint", "off", PROTO_KEY_ON_OFF, "pipeline only: on: with next-peer, routing takes a hop inside one family (region) as free" },
  { "protocol", "faulty_share", "0", PROTO_KEY_PROB, "pipeline only: share of servers whose pushes are wrong (what the next server's check catches)" },
  { "protocol", "step_timeout", "30s", PROTO_KEY_DUR, "pipeline only: a client waits this long for a server's result, then replaces it and replays" },
};

#define FAIL(sec, key, ...) proto_keys_fail (l, error, sec, key, __VA_ARGS__)

/* configure's step: the servers' ranges, listed one by one (every block
 * covered, none past the last) or a count in ranges of `replicas` */
static gboolean
configure_ranges (PipeConfig *pc, ProtoKeyLookup *l, GError **error)
{
  if (pc->n_ranges > 0)
    {
      if (proto_keys_given (l, "protocol", "replicas") && pc->replicas != 1)
        return FAIL ("protocol", "replicas", "applies to a count of servers, not to ranges listed one by one "
                     "(list a range again for another replica)");
      pc->replicas = 1;
      /* every block covered, none past the last */
      g_autofree guint *cover = g_new0 (guint, pc->blocks);
      for (guint i = 0; i < pc->n_ranges; i++)
        {
          if (pc->range_end[i] > pc->blocks)
            return FAIL ("protocol", "servers", "range %u-%u goes past the last block (%u: blocks = %u)",
                         pc->range_start[i], pc->range_end[i] - 1, pc->blocks - 1, pc->blocks);
          for (guint b = pc->range_start[i]; b < pc->range_end[i]; b++)
            cover[b]++;
        }
      for (guint b = 0; b < pc->blocks; b++)
        if (cover[b] == 0)
          {
            guint last = b;
            while (last + 1 < pc->blocks && cover[last + 1] == 0)
              last++;
            return FAIL ("protocol", "servers", "no server for blocks %u-%u: the chain has a gap", b, last);
          }
    }
  else
    {
      if (pc->replicas == 0)
        return FAIL ("protocol", "replicas", "must be at least 1: a range with no server leaves its blocks unserved");
      if (pc->servers % pc->replicas != 0)
        return FAIL ("protocol", "replicas", "%u servers do not split into ranges of %u replicas each",
                     pc->servers, pc->replicas);
      if (pc->servers / pc->replicas > pc->blocks)
        return FAIL ("protocol", "servers", "%u ranges of %u blocks: a range would be empty",
                     pc->servers / pc->replicas, pc->blocks);
    }
  return TRUE;
}

static gboolean
configure (ProtoConfig *q, ProtoKeyLookup *l, GError **error)
{
  g_autoptr (GError) e = NULL;
  PipeConfig *pc = pipe_config_mut (q);
  pc->blocks = proto_keys_uint (l, "protocol", "blocks");
  if (pc->blocks == 0 || pc->blocks >= G_MAXUINT16)
    return FAIL ("protocol", "blocks", "must be from 1 to %u", G_MAXUINT16 - 1);
  const char *servers = proto_keys_value (l, "protocol", "servers");
  if (!parse_servers (servers, &pc->servers, &pc->n_ranges, pc->range_start, pc->range_end, &e))
    return proto_keys_fail_with (l, error, "protocol", "servers", e);
  pc->replicas = proto_keys_uint (l, "protocol", "replicas");
  if (pc->servers == 0)
    return FAIL ("protocol", "servers", "must be at least 1");
  if (pc->servers > PROTO_KEY_PEERS_MAX)
    return FAIL ("protocol", "servers", "'%s' is out of range (a whole number from 1 to %u)", servers,
                 PROTO_KEY_PEERS_MAX);
  if (!configure_ranges (pc, l, error))
    return FALSE;
  if (!dl_dist_parse (proto_keys_value (l, "protocol", "compute_per_block"), DL_UNIT_DURATION, &pc->compute_per_block,
                      &e))
    return proto_keys_fail_with (l, error, "protocol", "compute_per_block", e);
  guint64 hidden = proto_keys_size (l, "protocol", "hidden_size");
  if (hidden == 0 || hidden > (G_GUINT64_CONSTANT (1) << 28))
    return FAIL ("protocol", "hidden_size", "must be from 1 B to 256 MiB per token");
  pc->hidden_size = (guint) hidden;
  pc->steps = proto_keys_uint (l, "protocol", "steps");
  if (pc->steps == 0)
    return FAIL ("protocol", "steps", "must be at least 1");
  pc->sessions = proto_keys_uint (l, "protocol", "sessions");
  if (pc->sessions == 0)
    return FAIL ("protocol", "sessions", "must be at least 1");
  pc->next_peer = proto_keys_is (l, "protocol", "forwarding", "next-peer");
  /* a knob of a setting not in use is ignored (a sweep over forwarding gives
   * it to every point), as gossip's keep without sparsify */
  pc->hash_copy = proto_keys_is (l, "protocol", "client_copy", "hash");
  if (!proto_key_parse_on_off (proto_keys_value (l, "protocol", "family_hint"), &pc->family_hint, &e))
    return proto_keys_fail_with (l, error, "protocol", "family_hint", e);
  pc->faulty_share = proto_keys_number (l, "protocol", "faulty_share");
  pc->step_timeout = proto_keys_duration (l, "protocol", "step_timeout");
  if (pc->step_timeout <= 0)
    return FAIL ("protocol", "step_timeout", "must be more than 0");
  /* a client has finished when its session generated every step (the
   * family refuses training.rounds) */
  q->rounds = pc->steps;
  /* clients p1..p<sessions>, then the servers; `count` follows a swept
   * `servers` unless it is given */
  if (!proto_keys_given (l, "peers", "count"))
    return TRUE;
  guint peers = proto_keys_uint (l, "peers", "count");
  if (peers < pc->servers + pc->sessions)
    return FAIL ("peers", "count", "%u peers, but the pipeline needs %u clients (p1..p%u) and %u servers (p%u..p%u)",
                 peers, pc->sessions, pc->sessions, pc->servers, pc->sessions + 1, pc->sessions + pc->servers);
  return TRUE;
}

/* peers.count, unless given: the sessions' clients and the servers */
static gboolean
peer_count (const ProtoKeyLookup *l, guint *count)
{
  guint servers = 0, sessions = 0;
  if (!parse_servers (proto_keys_value (l, "protocol", "servers"), &servers, NULL, NULL, NULL, NULL)
      || !proto_key_parse_uint (proto_keys_value (l, "protocol", "sessions"), &sessions)
      || servers > PROTO_KEY_PEERS_MAX || sessions > PROTO_KEY_PEERS_MAX)
    return FALSE;
  *count = servers + sessions;
  return TRUE;
}

/* the keys of learning: the pipeline infers, it trains no model */
static const char *const refused[] = {
  "training.rounds", "training.epochs_per_round", "training.after_training", "model.kind", "model.size",
  "model.hidden", "model.learning_rate", "model.batch_size", NULL,
};

const ProtoFamilyKeys proto_pipeline_keys = {
  .rows = rows,
  .n_rows = G_N_ELEMENTS (rows),
  .refused = refused,
  .configure = configure,
  .peer_count = peer_count,
};
