/* sim-scenario.c — loading scenario files and expanding sweeps (see
 * sim-scenario.h): the top of the loader, which calls its parts and which
 * none of them calls.  The key table (every key with its default, kind and
 * documentation, which the loader, `params` rows and the user guide all
 * come from) is sim-keys.c; building a world configuration sim-build.c, the
 * timeline sim-timeline.c, the expectations sim-expect.c, the value parsers
 * sim-values.c, a point's values and the error naming file, section and key
 * sim-point.c (sim-scenario-private.h draws the layers). */
#include "config.h"

#include "scenario/sim-scenario.h"
#include "scenario/sim-scenario-private.h"
#include "scenario/sim-trace.h"
#include "base/dl-units.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- entries */

typedef struct {
  char *section;
  char *key;
  char *value;
} Entry;

static void
entry_free (gpointer p)
{
  Entry *e = p;
  g_free (e->section);
  g_free (e->key);
  g_free (e->value);
  g_free (e);
}

static Entry *
entry_new (const char *section, const char *key, const char *value)
{
  Entry *e = g_new0 (Entry, 1);
  e->section = g_strdup (section);
  e->key = g_strdup (key);
  e->value = g_strdup (value);
  return e;
}

/* "value   # comment" -> "value" */
static char *
strip_comment (const char *raw)
{
  char *v = g_strdup (raw);
  for (char *p = v; *p; p++)
    if (*p == '#' && (p == v || p[-1] == ' ' || p[-1] == '\t'))
      {
        *p = '\0';
        break;
      }
  return g_strstrip (v);
}

/* The lines (from 1) where [group] of text gives key the first and the
 * second time, as GKeyFile reads it (a section may come back; # starts a
 * comment line); 0 for one not found. */
static void
key_lines (const char *text, const char *group, const char *key, gsize *first, gsize *second)
{
  *first = *second = 0;
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean in_group = FALSE;
  for (gsize i = 0; lines[i] && *second == 0; i++)
    {
      char *l = g_strstrip (lines[i]);
      if (*l == '[')
        {
          char *end = strrchr (l, ']');
          in_group = end && (gsize) (end - l - 1) == strlen (group) && strncmp (l + 1, group, strlen (group)) == 0;
          continue;
        }
      char *eq = strchr (l, '=');
      if (!in_group || *l == '#' || !eq)
        continue;
      *eq = '\0';
      if (strcmp (g_strstrip (l), key) == 0)
        *(*first ? second : first) = i + 1;
    }
}

/* A key given twice in one section: the error names both lines. */
static void
fail_twice (GError **error, const char *path, const char *text, const char *group, const char *key)
{
  gsize a, b;
  key_lines (text, group, key, &a, &b);
  g_autofree char *where = b ? g_strdup_printf (", on lines %zu and %zu", a, b) : g_strdup ("");
  _sim_scenario_fail_at (error, path, group, key, "appears twice%s: a key is given once in a section%s", where,
                         strcmp (group, "timeline") == 0
                           ? " (several timeline actions at one instant go on one line, separated by ;)" : "");
}

/* ---------------------------------------------------------------- points */

static void
point_free (gpointer data)
{
  SimPoint *p = data;
  g_free (p->label);
  g_ptr_array_unref (p->keys);
  g_ptr_array_unref (p->values);
  g_hash_table_unref (p->given);
  for (guint i = 0; i < p->expects->len; i++)
    {
      SimExpect *e = &g_array_index (p->expects, SimExpect, i);
      g_free (e->key);
      g_free (e->value);
    }
  g_array_unref (p->expects);
  g_free (p);
}

void
sim_scenario_free (SimScenario *s)
{
  if (!s)
    return;
  g_free (s->path);
  g_free (s->name);
  g_free (s->description);
  g_free (s->version);
  g_free (s->sha256);
  g_clear_pointer (&s->set_by, g_hash_table_unref);
  g_clear_pointer (&s->warnings, g_ptr_array_unref);
  g_ptr_array_unref (s->points);
  g_free (s);
}

/* peers.count, unless given, is what the family says (the pipeline's:
 * sessions + servers, so that a swept chain length moves it): the point
 * holds that value, so that `params` and export-scenario carry the count
 * the run had.  Values that do not parse, or are out of range, are left
 * for the checks to report. */
static void
family_peer_count (SimPoint *p)
{
  const char *name = _sim_scenario_point_value (p, "protocol", "family");
  const ProtoFamily *f = name ? proto_family_lookup (name) : NULL;
  ProtoKeyLookup l;
  guint n = 0;
  if (!f || !f->keys || !f->keys->peer_count || _sim_scenario_point_given (p, "peers", "count"))
    return;
  sim_keys_lookup_init (&l, p, NULL);
  if (!f->keys->peer_count (&l, &n))
    return;
  for (guint i = 0; i < p->keys->len; i++)
    if (strcmp (p->keys->pdata[i], "peers.count") == 0)
      {
        g_free (p->values->pdata[i]);
        p->values->pdata[i] = g_strdup_printf ("%u", n);
      }
}

/* ---------------------------------------------------------------- loading */

static gboolean
find_sweep (const char *v, gsize *start, gsize *end)
{
  const char *a = strstr (v, "${");
  if (!a)
    return FALSE;
  const char *b = strchr (a, '}');
  if (!b)
    return FALSE;
  *start = (gsize) (a - v);
  *end = (gsize) (b - v) + 1;
  return TRUE;
}

/* The file's text into *out_text and *out_len (transfer full), refused
 * when it holds a NUL byte.  FALSE with error on a refusal. */
static gboolean
read_text (const char *path, char **out_text, gsize *out_len, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr (GError) local = NULL;
  if (!g_file_get_contents (path, &text, &len, &local))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s: %s", path, local->message);
      return FALSE;
    }
  /* GKeyFile would stop at a NUL: the rest of the file would be lost */
  const char *nul = memchr (text, '\0', len);
  if (nul)
    {
      gsize line = 1;
      for (const char *c = text; c < nul; c++)
        line += *c == '\n';
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s:%zu: a NUL byte (a scenario file is text)", path, line);
      return FALSE;
    }
  *out_text = g_steal_pointer (&text);
  *out_len = len;
  return TRUE;
}

/* The keys of the file's section group into entries, each key checked:
 * text, given once, known to the section (any key in [timeline] and
 * [expect]).  FALSE with error on a refusal. */
static gboolean
read_section (const char *path, const char *text, GKeyFile *kf, const char *group, GPtrArray *entries,
              GError **error)
{
  gsize n_keys = 0;
  g_auto (GStrv) ks = g_key_file_get_keys (kf, group, &n_keys, NULL);
  for (gsize k = 0; k < n_keys; k++)
    {
      if (!g_utf8_validate (ks[k], -1, NULL))
        {
          g_autofree char *shown = g_utf8_make_valid (ks[k], -1);
          _sim_scenario_fail_at (error, path, group, shown, "not valid UTF-8");
          return FALSE;
        }
      for (gsize j = 0; j < k; j++)
        if (strcmp (ks[j], ks[k]) == 0)
          {
            fail_twice (error, path, text, group, ks[k]);
            return FALSE;
          }
      gboolean free_keys = strcmp (group, "timeline") == 0 || strcmp (group, "expect") == 0;
      if (!free_keys && !sim_key_default (group, ks[k]))
        {
          GString *known = g_string_new (NULL);
          for (guint i = 0; i < sim_keys_n (); i++)
            if (strcmp (sim_key_at (i).section, group) == 0)
              g_string_append_printf (known, "%s%s", known->len ? ", " : "", sim_key_at (i).key);
          _sim_scenario_fail_at (error, path, group, ks[k], "unknown key (keys of [%s]: %s)", group, known->str);
          g_string_free (known, TRUE);
          return FALSE;
        }
      g_autofree char *raw = g_key_file_get_value (kf, group, ks[k], NULL);
      g_autofree char *v = strip_comment (raw ? raw : "");
      if (!g_utf8_validate (v, -1, NULL))
        {
          g_autofree char *shown = g_utf8_make_valid (v, -1);
          _sim_scenario_fail_at (error, path, group, ks[k], "'%s' is not valid UTF-8", shown);
          return FALSE;
        }
      g_ptr_array_add (entries, entry_new (group, ks[k], v));
    }
  return TRUE;
}

/* Every section of the file text into entries, in the file's order,
 * each section name checked.  FALSE with error on a refusal. */
static gboolean
read_entries (const char *path, const char *text, GPtrArray *entries, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  if (!g_key_file_load_from_data (kf, text, (gsize) -1, G_KEY_FILE_NONE, &local))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s: not a valid scenario file: %s", path, local->message);
      return FALSE;
    }
  gsize n_groups = 0;
  g_auto (GStrv) groups = g_key_file_get_groups (kf, &n_groups);
  for (gsize g = 0; g < n_groups; g++)
    {
      if (!g_utf8_validate (groups[g], -1, NULL))
        {
          g_autofree char *shown = g_utf8_make_valid (groups[g], -1);
          _sim_scenario_fail_at (error, path, shown, NULL, "not valid UTF-8");
          return FALSE;
        }
      if (!sim_section_known (groups[g]))
        {
          _sim_scenario_fail_at (error, path, groups[g], NULL,
                   "unknown section (expected scenario, protocol, training, model, data, peers, "
                   "compute, network, churn, timeline or expect)");
          return FALSE;
        }
      if (!read_section (path, text, kf, groups[g], entries, error))
        return FALSE;
    }
  return TRUE;
}

/* --set section.key=value: each override replaces its entry's value or
 * adds an entry, and set_by tells which --set set the key.  FALSE with
 * error on a refusal. */
static gboolean
apply_overrides (const char *const *overrides, GPtrArray *entries, GHashTable *set_by, GError **error)
{
  for (guint i = 0; overrides && overrides[i]; i++)
    {
      const char *o = overrides[i];
      const char *eq = strchr (o, '='), *dot = strchr (o, '.');
      if (!g_utf8_validate (o, -1, NULL))
        {
          g_autofree char *shown = g_utf8_make_valid (o, -1);
          g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "--set '%s': not valid UTF-8", shown);
          return FALSE;
        }
      if (!eq || !dot || dot > eq)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "--set '%s': expected section.key=value", o);
          return FALSE;
        }
      g_autofree char *sec = g_strndup (o, (gsize) (dot - o));
      g_autofree char *key = g_strstrip (g_strndup (dot + 1, (gsize) (eq - dot - 1)));
      g_autofree char *val = g_strstrip (g_strdup (eq + 1));
      gboolean free_keys = strcmp (sec, "timeline") == 0 || strcmp (sec, "expect") == 0;
      if (!sim_section_known (sec) || (!free_keys && !sim_key_default (sec, key)))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "--set '%s': unknown key %s.%s", o, sec, key);
          return FALSE;
        }
      gboolean replaced = FALSE;
      for (guint k = 0; k < entries->len; k++)
        {
          Entry *e = entries->pdata[k];
          if (strcmp (e->section, sec) == 0 && strcmp (e->key, key) == 0)
            {
              g_free (e->value);
              e->value = g_strdup (val);
              replaced = TRUE;
            }
        }
      if (!replaced)
        g_ptr_array_add (entries, entry_new (sec, key, val));
      g_hash_table_replace (set_by, g_strdup_printf ("%s.%s", sec, key), g_strdup_printf ("--set %s", o));
    }
  return TRUE;
}

/* The entries whose value holds a sweep list ${a,b,...} into
 * sweep_entries, their alternatives into sweep_alts, and the number of
 * points of the sweep into *n_points.  FALSE with error on a refusal. */
static gboolean
find_sweeps (const char *path, GPtrArray *entries, GPtrArray *sweep_entries, GPtrArray *sweep_alts, guint *n_points,
             GError **error)
{
  for (guint k = 0; k < entries->len; k++)
    {
      Entry *e = entries->pdata[k];
      gsize a = 0, b = 0;
      if (!find_sweep (e->value, &a, &b))
        {
          if (strstr (e->value, "${"))
            {
              _sim_scenario_fail_at (error, path, e->section, e->key, "'%s': a sweep list ${...} is missing its '}'", e->value);
              return FALSE;
            }
          continue;
        }
      g_autofree char *inner = g_strndup (e->value + a + 2, b - a - 3);
      GPtrArray *alts = _sim_scenario_split_top (inner, ',');
      for (guint i = 0; i < alts->len; i++)
        if (*(char *) alts->pdata[i] == '\0')
          {
            g_ptr_array_unref (alts);
            _sim_scenario_fail_at (error, path, e->section, e->key, "'%s': empty entry in a sweep list", e->value);
            return FALSE;
          }
      if (*n_points > 100000 / MAX (alts->len, 1))
        {
          g_ptr_array_unref (alts);
          _sim_scenario_fail_at (error, path, e->section, e->key, "the sweep has more than 100000 points");
          return FALSE;
        }
      *n_points *= alts->len;
      g_ptr_array_add (sweep_entries, e);
      g_ptr_array_add (sweep_alts, alts);
    }
  return TRUE;
}

/* Point pi's alternative of each sweep (the last varies fastest) into
 * chosen (entry -> its value there), and the point's label */
static char *
choose_alternatives (guint pi, GPtrArray *sweep_entries, GPtrArray *sweep_alts, GHashTable *chosen)
{
  GString *label = g_string_new (NULL);
  guint rest = pi;
  for (guint si = sweep_entries->len; si > 0; si--)
    {
      Entry *e = sweep_entries->pdata[si - 1];
      GPtrArray *alts = sweep_alts->pdata[si - 1];
      const char *alt = alts->pdata[rest % alts->len];
      rest /= alts->len;
      gsize a = 0, b = 0;
      find_sweep (e->value, &a, &b);
      char *v = g_strdup_printf ("%.*s%s%s", (int) a, e->value, alt, e->value + b);
      g_hash_table_insert (chosen, e, v);
    }
  for (guint si = 0; si < sweep_entries->len; si++)
    {
      Entry *e = sweep_entries->pdata[si];
      g_string_append_printf (label, "%s%s.%s=%s", label->len ? ", " : "", e->section, e->key,
                              (char *) g_hash_table_lookup (chosen, e));
    }
  return g_string_free (label, FALSE);
}

/* Point p's values: every key of the table (its default, or the entry's
 * value at the point), then its timeline and its expectations.  FALSE
 * with error on an expectation refused. */
static gboolean
fill_point (const char *path, SimPoint *p, GPtrArray *entries, GHashTable *chosen, GError **error)
{
  for (guint i = 0; i < sim_keys_n (); i++)
    {
      SimKeyInfo ki = sim_key_at (i);
      const char *v = ki.def;
      for (guint k = 0; k < entries->len; k++)
        {
          Entry *e = entries->pdata[k];
          if (strcmp (e->section, ki.section) == 0 && strcmp (e->key, ki.key) == 0)
            {
              v = g_hash_table_lookup (chosen, e) ? g_hash_table_lookup (chosen, e) : e->value;
              g_hash_table_add (p->given, g_strdup_printf ("%s.%s", ki.section, ki.key));
            }
        }
      g_ptr_array_add (p->keys, g_strdup_printf ("%s.%s", ki.section, ki.key));
      g_ptr_array_add (p->values, g_strdup (v));
    }
  family_peer_count (p);
  for (guint k = 0; k < entries->len; k++)
    {
      Entry *e = entries->pdata[k];
      const char *v = g_hash_table_lookup (chosen, e) ? g_hash_table_lookup (chosen, e) : e->value;
      if (strcmp (e->section, "timeline") == 0)
        {
          g_ptr_array_add (p->keys, g_strdup_printf ("timeline.%s", e->key));
          g_ptr_array_add (p->values, g_strdup (v));
        }
      else if (strcmp (e->section, "expect") == 0)
        {
          SimExpect x;
          if (!_sim_scenario_parse_expect_line (path, e->key, v, &x, error))
            return FALSE;
          g_array_append_val (p->expects, x);
        }
    }
  return TRUE;
}

/* The sweep's n_points points into s.  FALSE with error on a refusal. */
static gboolean
make_points (SimScenario *s, GPtrArray *entries, GPtrArray *sweep_entries, GPtrArray *sweep_alts, guint n_points,
             GError **error)
{
  for (guint pi = 0; pi < n_points; pi++)
    {
      SimPoint *p = g_new0 (SimPoint, 1);
      p->index = pi;
      p->keys = g_ptr_array_new_with_free_func (g_free);
      p->values = g_ptr_array_new_with_free_func (g_free);
      p->expects = g_array_new (FALSE, TRUE, sizeof (SimExpect));
      p->given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_ptr_array_add (s->points, p);
      g_autoptr (GHashTable) chosen = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
      p->label = choose_alternatives (pi, sweep_entries, sweep_alts, chosen);
      if (!fill_point (s->path, p, entries, chosen, error))
        return FALSE;
    }
  return TRUE;
}

/* The scenario's own values, from its first point: name (the file's
 * name without its extension when not given), description, seed,
 * repeat and version.  FALSE with error on a refusal. */
static gboolean
read_header (SimScenario *s, GError **error)
{
  SimPoint *p0 = s->points->pdata[0];
  const char *name = _sim_scenario_point_value (p0, "scenario", "name");
  if (*name)
    s->name = g_strdup (name);
  else
    {
      g_autofree char *base = g_path_get_basename (s->path);
      char *dot = strrchr (base, '.');
      if (dot)
        *dot = '\0';
      s->name = g_utf8_make_valid (base, -1);   /* a file name is bytes; the name is text */
    }
  s->description = g_strdup (_sim_scenario_point_value (p0, "scenario", "description"));
  g_ascii_string_to_unsigned (_sim_scenario_point_value (p0, "scenario", "seed"), 10, 0, G_MAXUINT64, &s->seed, NULL);
  s->repeat = 1;
  _sim_scenario_parse_uint (_sim_scenario_point_value (p0, "scenario", "repeat"), &s->repeat);
  s->version = g_strdup (_sim_scenario_point_value (p0, "protocol", "version"));
  if (s->repeat == 0)
    {
      _sim_scenario_fail_at (error, s->path, "scenario", "repeat", "must be at least 1");
      return FALSE;
    }
  return TRUE;
}

/* Every point of s built once, so that everything is checked before
 * anything runs; the builds' warnings into s, each once.  FALSE with
 * error (naming the sweep point) on a refusal. */
static gboolean
check_points (SimScenario *s, GError **error)
{
  for (guint pi = 0; pi < s->points->len; pi++)
    {
      SimBuilt b;
      g_autoptr (GError) e = NULL;
      if (!sim_scenario_build (s, s->points->pdata[pi], s->seed, &b, &e))
        {
          SimPoint *p = s->points->pdata[pi];
          if (*p->label)
            g_set_error (error, SIM_ERROR, SIM_ERROR_CONFIG, "%s (sweep point %s)", e->message, p->label);
          else
            g_propagate_error (error, g_steal_pointer (&e));
          return FALSE;
        }
      if (b.warning && !g_ptr_array_find_with_equal_func (s->warnings, b.warning, g_str_equal, NULL))
        g_ptr_array_add (s->warnings, g_steal_pointer (&b.warning));
      sim_built_clear (&b);
    }
  return TRUE;
}

SimScenario *
sim_scenario_load (const char *path, const char *const *overrides, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr (GPtrArray) entries = g_ptr_array_new_with_free_func (entry_free);
  g_autoptr (GHashTable) set_by = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GPtrArray) sweep_entries = g_ptr_array_new ();
  g_autoptr (GPtrArray) sweep_alts = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  guint n_points = 1;
  if (!read_text (path, &text, &len, error) || !read_entries (path, text, entries, error)
      || !apply_overrides (overrides, entries, set_by, error)
      || !find_sweeps (path, entries, sweep_entries, sweep_alts, &n_points, error))
    return NULL;

  SimScenario *s = g_new0 (SimScenario, 1);
  s->path = g_strdup (path);
  s->sha256 = g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
  s->set_by = g_steal_pointer (&set_by);
  s->points = g_ptr_array_new_with_free_func (point_free);
  s->warnings = g_ptr_array_new_with_free_func (g_free);
  if (!make_points (s, entries, sweep_entries, sweep_alts, n_points, error) || !read_header (s, error)
      || !check_points (s, error))
    {
      sim_scenario_free (s);
      return NULL;
    }
  return s;
}
