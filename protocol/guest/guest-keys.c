/* guest-keys.c — the guest family's scenario keys (docs/guest.md,
 * README.md beside it) and how it configures itself from them: the
 * guest's command line and folder, its answer timeout, the hang window.
 * Exported through proto_family_guest's `keys` (guest-family.c). */
#include "config.h"

#include "protocol/guest/guest-config.h"
#include "protocol/proto-keys.h"
#include "base/dl-units.h"

#include <string.h>

static const ProtoKey rows[] = {
  { "protocol", "guest_command", "", PROTO_KEY_STR, "guest only: the guest's command line, run in the scenario file's folder, its stdin and stdout the line protocol (docs/guest.md), e.g. python3 ../../guests/pushpull/pushpull.py" },
  { "protocol", "guest_timeout", "30s", PROTO_KEY_DUR, "guest only: wall-clock time the guest may take to answer one line; past it the run ends with outcome error" },
  { "protocol", "guest_dir", "", PROTO_KEY_STR, "guest only: the folder the guest runs in (relative: to the scenario file's folder; empty: that folder)",
    .path = PROTO_KEY_PATH_OR_HERE },
  { "protocol", "guest_stall", "10min", PROTO_KEY_DUR, "guest only: a connected peer that makes no progress for this long is hung (the hang detector's window)" },
  { "protocol", "guest_round_begins", "list", PROTO_KEY_STR, "guest only: list | start: the coordinator's action that begins a round (the timeline's `round N`, the retry count's reset): `list N K`, or `start N K` (the exchange after a connection barrier, as DISCO #1110's StartWeightSharing)" },
  { "protocol", "guest_barrier_retry", "", PROTO_KEY_STR, "guest only: the kind (TYPE) of the coordinator's message that tells a peer to retry the round's connection barrier (DISCO #1110: RetryPeerConnections); counted per peer (retries_received) and by the retries-before-exclusion property" },
  { "protocol", "guest_connection_fail", "", PROTO_KEY_STR, "guest only: the kind (TYPE) of the coordinator's message that tells a peer it is excluded (DISCO #1110: ConnectionFail); counted per peer (fails_received) and by the excluded-was-told property" },
  { "protocol", "guest_max_connection_retry", "0", PROTO_KEY_UINT, "guest only: with guest_barrier_retry, the Retries a peer gets in a round before it may be excluded (DISCO #1110's maxConnectionRetry); 0: retries-before-exclusion is not checked", 0, 1000 },
  { "protocol", "guest_agreement", "off", PROTO_KEY_ON_OFF, "guest only: on: the guest promises that the peers that end a round hold one model, and the agreement property compares the models its peers report with `model` (docs/guest.md)" },
};

/* the quorum (proto-keys.c's group): the guest is told it */
static const ProtoKeyGroup *const groups[] = { &proto_keys_quorum, NULL };

/* a guest is told the rounds alone: the other keys of learning do nothing */
static const char *const refused[] = {
  "training.epochs_per_round", "training.after_training", "model.kind", "model.size", "model.hidden",
  "model.learning_rate", "model.batch_size", NULL,
};

#define FAIL(key, ...) proto_keys_fail (l, error, "protocol", key, __VA_ARGS__)

/* a kind as a guest's `send` names it: 1 to 32 letters, digits, -_. */
static gboolean
kind_ok (const char *s)
{
  gsize n = strlen (s);
  return n <= 32 && strspn (s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == n;
}

/* guest_round_begins and the kinds that play roles */
static gboolean
roles (GuestConfig *gc, ProtoKeyLookup *l, GError **error)
{
  const char *rb = proto_keys_value (l, "protocol", "guest_round_begins");
  if (strcmp (rb, "list") != 0 && strcmp (rb, "start") != 0)
    return FAIL ("guest_round_begins", "'%s': list or start", rb);
  gc->round_begins_at_start = rb[0] == 's';
  const char *retry = proto_keys_value (l, "protocol", "guest_barrier_retry");
  const char *fail = proto_keys_value (l, "protocol", "guest_connection_fail");
  if (!kind_ok (retry))
    return FAIL ("guest_barrier_retry", "'%s': a kind is 1 to 32 letters, digits, '-', '_' or '.'", retry);
  if (!kind_ok (fail))
    return FAIL ("guest_connection_fail", "'%s': a kind is 1 to 32 letters, digits, '-', '_' or '.'", fail);
  g_strlcpy (gc->barrier_retry, retry, sizeof gc->barrier_retry);
  g_strlcpy (gc->connection_fail, fail, sizeof gc->connection_fail);
  gc->max_connection_retry = proto_keys_uint (l, "protocol", "guest_max_connection_retry");
  if (gc->max_connection_retry > 0 && !*retry)
    return FAIL ("guest_max_connection_retry", "needs guest_barrier_retry, the kind that is counted");
  return TRUE;
}

static gboolean
configure (ProtoConfig *pc, ProtoKeyLookup *l, GError **error)
{
  g_autoptr (GError) e = NULL;
  GuestConfig *gc = guest_config_mut (pc);
  pc->min_participants = proto_keys_uint (l, "protocol", "min_participants");
  if (pc->min_participants == 0)
    return FAIL ("min_participants", "must be at least 1");
  /* docs/guest.md: the command runs in the scenario file's folder */
  const char *cmd = proto_keys_value (l, "protocol", "guest_command");
  const char *gd = proto_keys_value (l, "protocol", "guest_dir");
  const char *base = l->dir ? l->dir : ".";
  g_autofree char *dir = !*gd ? g_strdup (base) : g_path_is_absolute (gd) ? g_strdup (gd) : g_build_filename (base, gd, NULL);
  if (!*cmd)
    return FAIL ("guest_command", "a guest needs its command line (docs/guest.md)");
  if (strlen (cmd) >= sizeof gc->command)
    return FAIL ("guest_command", "longer than %zu bytes", sizeof gc->command - 1);
  if (strlen (dir) >= sizeof gc->dir)
    return FAIL (*gd ? "guest_dir" : "guest_command", "the guest's folder is longer than %zu bytes", sizeof gc->dir - 1);
  if (*gd && !g_file_test (dir, G_FILE_TEST_IS_DIR))
    return FAIL ("guest_dir", "'%s': no such folder", dir);
  g_strlcpy (gc->command, cmd, sizeof gc->command);
  g_strlcpy (gc->dir, dir, sizeof gc->dir);
  DlTime t;
  if (!dl_parse_duration (proto_keys_value (l, "protocol", "guest_timeout"), &t, &e))
    return proto_keys_fail_with (l, error, "protocol", "guest_timeout", e);
  if (t < DL_MS || t > 3600 * DL_S)
    return FAIL ("guest_timeout", "must be 1ms to 1h");
  gc->timeout_ms = (guint) (t / DL_MS);
  if (!dl_parse_duration (proto_keys_value (l, "protocol", "guest_stall"), &gc->stall, &e))
    return proto_keys_fail_with (l, error, "protocol", "guest_stall", e);
  if (gc->stall <= 0)
    return FAIL ("guest_stall", "must be more than 0");
  gc->agreement = proto_keys_on (l, "protocol", "guest_agreement");
  if (!roles (gc, l, error))
    return FALSE;
  /* 2 to 9: a value out of 1..9 is the loader's error (its range) */
  guint replicas = proto_keys_uint (l, "protocol", "coordinator_replicas");
  if (replicas > 1 && replicas <= 9)
    return FAIL ("coordinator_replicas", "a guest runs its own coordinator: 1 only");
  return TRUE;
}

const ProtoFamilyKeys proto_guest_keys = {
  .rows = rows,
  .n_rows = G_N_ELEMENTS (rows),
  .groups = groups,
  .refused = refused,
  .configure = configure,
};
