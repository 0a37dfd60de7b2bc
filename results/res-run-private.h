/* res-run-private.h — a run's recording state, shared by res-db.c (the
 * recorder and the rows) and res-writer.c (the writer thread). */
#pragma once

#include "results/res-db-private.h"
#include "results/res-violations.h"

#include <pthread.h>
#include <sqlite3.h>

/* An event row on its way to the writer: 56 bytes, with its strings that
 * are not static (a fact's kind, a detail) in its Item's text. */
typedef struct {
  gint64 seq;
  DlTime t;
  const char *kind;    /* static, or NULL: at kind_at in the item's text */
  const char *state;   /* static */
  const char *msg;     /* static */
  gint64 value;        /* -1: NULL */
  ProtoNodeId node;    /* PROTO_NO_NODE: NULL, or "world" with node_world */
  ProtoNodeId other;   /* PROTO_NO_NODE: NULL */
  int round;           /* -1: NULL */
  guint16 kind_at, detail_at;   /* offsets in the item's text; detail_at NO_TEXT: NULL */
  gboolean node_world;
} EventRow;

#define NO_TEXT 0xffff
/* batches between the simulation and the writer: about 8 MB.  The writer
 * is faster than the simulation on average but stalls in each commit's
 * fsync; with 32 (2 MB, 4 ms of a 100-peer run's events) the simulation
 * waited for it, and bench record read +28 % instead of +22 % */
#define MAX_ITEMS 128
#define EVENT_TEXT 32768   /* bytes of strings per batch */
#define EVENT_BATCH 512
#define CHUNK_ROWS 1024   /* events per event_chunks row */
/* The writer commits a second after its last commit, not every so many
 * rows: with a rollback journal each commit waited on three fsyncs, and
 * with one every 20 000 rows they cost a 100-peer run a fifth of its time
 * (docs/performance.md, "Recording").  In WAL mode (res-file.c) a commit
 * waits on no disk; what a kill may lose is still the second since the
 * last commit.  Between commits SQLite spills the run's new pages to the
 * log as its cache fills (RUN_CACHE_KIB), and every WRITEBACK_CHUNKS
 * chunks the writer asks the kernel to start writing the log to the disk,
 * so that the checkpoint's fsync at the file's close finds little left. */
#define COMMIT_INTERVAL_US G_USEC_PER_SEC
/* A spill takes the file's exclusive lock until the commit, so for this
 * long after each commit the writer does not spill (its cache grows
 * instead): a reader waiting on the lock (SQLite's busy handler retries at
 * most 100 ms apart) gets in. */
#define READERS_WINDOW_US (150 * G_TIME_SPAN_MILLISECOND)
#define READERS_WINDOW_KIB 65536   /* at most this much in the cache meanwhile */
#define RUN_CACHE_KIB 1024   /* a literal: G_STRINGIFY puts it in a PRAGMA */
#define WRITEBACK_CHUNKS 16

/* A blocking FIFO on a pthread mutex and condition variable (rather than
 * GAsyncQueue, whose futex-based locking ThreadSanitizer cannot follow). */
typedef struct {
  pthread_mutex_t lock;
  pthread_cond_t ready;
  GQueue items;
} WQueue;

typedef enum { ITEM_EVENTS, ITEM_METRIC, ITEM_SYNC, ITEM_STOP } ItemKind;

typedef struct {
  ItemKind kind;
  guint n;                    /* ITEM_EVENTS: rows used */
  EventRow rows[EVENT_BATCH];
  guint text_len;
  char text[EVENT_TEXT];
  /* ITEM_METRIC */
  double t_s;
  int round;
  char peer[24];
  char name[32];
  double value;
} Item;

/* The writer's JSON for names it wrote before (res-writer.c): the program's
 * own names (states, messages, observation kinds) by their address, and
 * node names by id.  Copied whole, so the row's room covers their size. */
typedef struct {
  const char *key;
  guint8 len;            /* of json; 0: the name is "" (null) */
  char json[39];         /* "name" */
} NameJson;
#define NAME_CACHE 64    /* entries, by address */
#define NODE_CACHE 4096  /* ids below this get their "pN" kept */
typedef struct {
  char json[7];          /* "p4095" at most */
  guint8 len;            /* 0: not yet */
} NodeJson;

typedef struct {
  double list_s, start_s, end_s;
  gint64 participants, retries, excluded;
  gboolean seen;
} RoundRow;

struct ResRun {
  ResDb *db;
  gint64 id;
  sqlite3_stmt *ins_chunk, *ins_metric;
  char *chunk;                      /* the writer's event_chunks row being built (JSON) */
  gsize chunk_len, chunk_cap;
  NameJson names[NAME_CACHE];
  NodeJson *nodes;                  /* NODE_CACHE of them, the writer's */
  guint chunk_rows;
  gint64 chunk_first;               /* its first seq */
  Item *cur;                        /* the batch being filled (simulation side) */
  guint items_out;                  /* Items allocated (at most MAX_ITEMS) */
  gint64 seq;                       /* events.seq of the last row */
  WQueue to_writer;                 /* Item* for the writer thread */
  WQueue free_items;                /* Item* to reuse */
  WQueue acks;                      /* the writer's answers to ITEM_SYNC */
  pthread_t writer;
  gboolean writer_running;
  int writeback_fd;       /* the database file, read-only, for sync_file_range; -1: none */
  guint chunks_since_writeback;
  GArray *rounds;         /* RoundRow, index = round (0-based) */
  guint64 traffic_msgs[PROTO_MSG_N_TYPES];
  guint64 traffic_bytes[PROTO_MSG_N_TYPES];
  const SimPoint *point;
  gboolean no_events;
  const SimPeerResult *peers;   /* [1..n_peers] (res_run_set_peers) */
  guint n_peers;
  ResViolations *violations;
  char *write_error;      /* the writer's first failure (SQLite's message); it writes nothing after it */
};


/* S, pN, or "" for PROTO_NO_NODE */
/* Returns the name's length. */
gsize res_node_name (char buf[24], ProtoNodeId id);
void _res_wq_init (WQueue *q);
void _res_wq_clear (WQueue *q, GDestroyNotify free_item);
void _res_wq_push (WQueue *q, gpointer item);
gpointer _res_wq_pop (WQueue *q);
gpointer _res_wq_try_pop (WQueue *q);
/* the writer thread's loop */
gpointer _res_writer_main (gpointer data);
/* an item to fill and hand to the writer */
Item *_res_take_item (ResRun *r, ItemKind kind);
/* hands the events batch being filled to the writer */
void _res_flush_events (ResRun *r);
/* waits until the writer is idle (and stops it with stop) */
void _res_sync_writer (ResRun *r, gboolean stop);
