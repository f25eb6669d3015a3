// The floor under replay's decisions: the benchmark's whole job, done as cheaply as a plain C
// program can, to measure how fast this machine can do it at all.
//
// It reads the events file, and for each event finds its device and beacon, takes the beacon's
// candidate campaigns (the campaigns on that exact beacon, and the venue-wide ones of its UUID,
// kept once per UUID so that they stay in cache), decides each against its timeframes and the
// device's suppression state (once-only, an interval), records what fired, appends one entry per
// record to a delivery ledger, and writes each record: a head built from the event and campaign,
// and a tail as long as the campaign's payload, by reference (writev to /dev/null), as replay
// does. Events are taken 64 at a time, a stage at a time: every line parsed and hashed and its
// table slots prefetched, then every device numbered and its state prefetched, then the
// decisions. It makes the same decisions as replay on the benchmark's workload: with --ids it
// prints each record's id ("eid:device:event"), and scripts/decision-floor.sh checks that they
// are replay's ids, record for record.
//
// What it leaves out, and replay does not: checking that a line is valid JSON and an event (it
// assumes the benchmark's exact layout: keys in the SPEC's order, no white space, no escapes),
// error messages, escaping, choosing a language per locale and rendering the tails, actions that
// share an eid, dwell, deliverAt, instant actions. So it is a floor, not a competitor.
//
//   python3 scripts/decision-floor-table.py .build/bench/campaigns/bench.json > /tmp/floor-campaigns.txt
//   cc -O2 -march=native -o /tmp/decision-floor scripts/decision-floor.c
//   taskset -c 1 /tmp/decision-floor /tmp/floor-campaigns.txt .build/bench/events.jsonl [--ids]
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum { BATCH = 64, VECTORS = 1024, MAX_CANDIDATES = 4096, IN = 1 << 20, HEADS = 64 << 20 };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *grow(void *p, size_t bytes) {
    p = realloc(p, bytes);
    if (!p) { perror("realloc"); exit(1); }
    return p;
}

// ---- Campaigns: a cold record each (eid, tail) and a hot row (what deciding reads).

typedef struct { char eid[40]; int eidLength; int trigger; char *tail; int tailLength; } Campaign;
typedef struct { int64_t interval, delay; int32_t framesStart; int16_t frames; uint8_t keepsState, onceOnly; } Row;

static Campaign *campaigns;
static Row *rows;
static int64_t *frames;
static int campaignCount, frameCount;

// ---- Keys (device ids, pids, UUIDs) numbered in an open-addressing table, the key's bytes in
// the slot, so that a lookup reads one slot.

typedef struct { uint64_t hash; int32_t number; uint8_t length; char key[43]; } Slot;
typedef struct { Slot *slots; uint64_t mask; int count; } Table;

static inline uint64_t hashBytes(const char *p, int n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n, w;
    for (; n >= 8; p += 8, n -= 8) { memcpy(&w, p, 8); h = (h ^ w) * 0xff51afd7ed558ccdull; h ^= h >> 29; }
    w = 0;
    memcpy(&w, p, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 32);
}

static inline int sameBytes(const char *a, const char *b, int n) {
    uint64_t x, y;
    for (; n >= 8; a += 8, b += 8, n -= 8) { memcpy(&x, a, 8); memcpy(&y, b, 8); if (x != y) return 0; }
    while (n--) if (*a++ != *b++) return 0;
    return 1;
}

static void tableInit(Table *t, int size) {
    t->slots = calloc(size, sizeof(Slot));
    t->mask = size - 1;
    t->count = 0;
    for (int i = 0; i < size; i++) t->slots[i].number = -1;
}

static inline Slot *home(Table *t, uint64_t hash) { return &t->slots[hash & t->mask]; }

// The key's number, -1 when it is not in the table (added, numbered next, when `add`).
static inline int32_t number(Table *t, const char *key, int n, uint64_t hash, int add) {
    for (uint64_t i = hash & t->mask;; i = (i + 1) & t->mask) {
        Slot *s = &t->slots[i];
        if (s->number < 0) {
            if (!add) return -1;
            if ((uint64_t)t->count * 8 >= (t->mask + 1) * 5 || n > (int)sizeof s->key) { fprintf(stderr, "table full or key too long\n"); exit(1); }
            s->hash = hash; s->length = n; memcpy(s->key, key, n); s->number = t->count++;
            return s->number;
        }
        if (s->hash == hash && s->length == n && sameBytes(s->key, key, n)) return s->number;
    }
}

// ---- Candidates: each UUID's venue-wide campaigns per trigger, each pid's exact ones per trigger.

typedef struct { int32_t *items; int count; } List;
static Table uuids, pids, beacons, devices;
static List (*byUUID)[2], (*byPid)[2];
// Per numbered beacon: its UUID's number (-1: none) and its pid's (-1: none).
typedef struct { int32_t uuid, pid; } Beacon;
static Beacon *beaconList;

static void listAppend(List *l, int32_t value) {
    if (l->count && l->items[l->count - 1] == value) return; // a beacon listed twice in one campaign
    l->items = grow(l->items, sizeof(int32_t) * (l->count + 1));
    l->items[l->count++] = value;
}

// ---- State: each device's (campaign, last firing) entries side by side.

typedef struct { int32_t campaign; int64_t time; } Entry;
typedef struct { Entry *entries; int count, capacity; } Device;
static Device *deviceState;

typedef struct { uint64_t event; int32_t device, campaign; int64_t fireDate; } Delivery;

static void loadCampaigns(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(1); }
    static char line[1 << 16];
    int capacity = 0;
    tableInit(&uuids, 1 << 12);
    tableInit(&pids, 1 << 17);
    while (fgets(line, sizeof line, f)) {
        if (campaignCount == capacity) {
            capacity = capacity ? capacity * 2 : 1024;
            campaigns = grow(campaigns, sizeof(Campaign) * capacity);
            rows = grow(rows, sizeof(Row) * capacity);
        }
        Campaign *c = &campaigns[campaignCount];
        Row *r = &rows[campaignCount];
        char *p = line;
        int used, frameTotal, beaconTotal;
        long long suppression, delay, onceOnly;
        if (sscanf(p, "%39s %d %lld %lld %lld %d%n", c->eid, &c->trigger, &suppression, &delay, &onceOnly, &frameTotal, &used) != 6) {
            fprintf(stderr, "%s:%d: not a campaign row\n", path, campaignCount + 1);
            exit(1);
        }
        p += used;
        c->eidLength = strlen(c->eid);
        r->interval = suppression > 0 ? suppression * 1000 : 0;
        r->onceOnly = onceOnly || suppression == 0;
        r->keepsState = r->onceOnly || r->interval > 0;
        r->delay = delay > 0 ? delay * 1000 : 0;
        r->framesStart = frameCount;
        r->frames = frameTotal;
        frames = grow(frames, sizeof(int64_t) * (frameCount + 2 * frameTotal + 2));
        for (int i = 0; i < 2 * frameTotal; i++) { long long v; sscanf(p, "%lld%n", &v, &used); p += used; frames[frameCount++] = v; }
        sscanf(p, "%d%n", &beaconTotal, &used);
        p += used;
        for (int b = 0; b < beaconTotal; b++) {
            char beacon[64];
            sscanf(p, "%63s%n", beacon, &used);
            p += used;
            int n = strlen(beacon), known;
            Table *t = n == 32 ? &uuids : &pids;
            List (**lists)[2] = n == 32 ? &byUUID : &byPid;
            known = t->count;
            int32_t k = number(t, beacon, n, hashBytes(beacon, n), 1);
            if (t->count > known) {
                *lists = grow(*lists, sizeof(List[2]) * t->count);
                memset((*lists)[k], 0, sizeof(List[2]));
            }
            for (int trigger = 0; trigger < 2; trigger++)
                if (c->trigger & (1 << trigger)) listAppend(&(*lists)[k][trigger], campaignCount);
        }
        sscanf(p, "%d", &c->tailLength);
        c->tail = malloc(c->tailLength);
        memset(c->tail, 'x', c->tailLength);
        c->tail[c->tailLength - 1] = '\n';
        campaignCount++;
    }
    fclose(f);
}

static void writeAll(int fd, struct iovec *vectors, int count) {
    for (int v = 0; v < count; v += VECTORS)
        if (writev(fd, vectors + v, count - v < VECTORS ? count - v : VECTORS) < 0) { perror("writev"); exit(1); }
}

static int64_t dayMilliseconds(const char *p) { // YYYY-MM-DD, days from civil
    int y = atoi(p), m = (p[5] - '0') * 10 + p[6] - '0', d = (p[8] - '0') * 10 + p[9] - '0';
    y -= m <= 2;
    int era = y / 400, yoe = y - era * 400;
    int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return (int64_t)(era * 146097 + doe - 719468) * 86400000LL;
}

typedef struct { const char *id, *device, *beacon, *time; int idLength, deviceLength, enter; uint64_t deviceHash, beaconHash; int64_t ms; } Event;

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s CAMPAIGN_TABLE EVENTS.jsonl [--ids]\n", argv[0]); return 2; }
    int printIDs = argc > 3 && strcmp(argv[3], "--ids") == 0;
    double start = now();
    loadCampaigns(argv[1]);
    double loaded = now();
    tableInit(&beacons, 1 << 18);
    tableInit(&devices, 1 << 18);
    beaconList = malloc(sizeof(Beacon) << 18);
    deviceState = calloc(1 << 18, sizeof(Device));
    size_t deliveryCapacity = 1 << 22, deliveries = 0;
    Delivery *ledger = malloc(sizeof(Delivery) * deliveryCapacity);

    int in = open(argv[2], O_RDONLY), out = open("/dev/null", O_WRONLY);
    if (in < 0) { perror(argv[2]); return 1; }
    char *buffer = malloc(IN), *heads = malloc(HEADS);
    struct iovec *vectors = malloc(sizeof(struct iovec) * 2 * 65536);
    size_t have = 0, headsUsed = 0;
    int vectorCount = 0;
    long events = 0, records = 0;
    char day[10] = {0};
    int64_t dayMs = 0;

    for (int done = 0; !done;) {
        ssize_t r = read(in, buffer + have, IN - have);
        if (r < 0) { perror("read"); return 1; }
        done = r == 0;
        have += r;
        char *p = buffer, *end = buffer + have;
        for (;;) {
            // Stage 1: parse the batch's lines (the benchmark's exact layout), hash and prefetch.
            Event batch[BATCH];
            int n = 0;
            char *newline;
            while (n < BATCH && (newline = memchr(p, '\n', end - p))) {
                // {"id":"e-0","device":"dev-86747","type":"enter","beacon":"<42>","time":"<24>","locale":"en-US"}
                Event *e = &batch[n++];
                e->id = p + 7;
                const char *q = memchr(e->id, '"', newline - e->id);
                e->idLength = q - e->id;
                e->device = q + 12;
                q = memchr(e->device, '"', newline - e->device);
                e->deviceLength = q - e->device;
                const char *type = q + 10;
                e->enter = type[1] == 'n';
                q = memchr(type, '"', newline - type);
                e->beacon = q + 12;
                e->time = e->beacon + 52;
                const char *t = e->time;
                if (memcmp(t, day, 10)) { memcpy(day, t, 10); dayMs = dayMilliseconds(t); }
                e->ms = dayMs + ((t[11] - '0') * 10 + t[12] - '0') * 3600000LL + ((t[14] - '0') * 10 + t[15] - '0') * 60000LL
                    + ((t[17] - '0') * 10 + t[18] - '0') * 1000LL + (t[20] - '0') * 100 + (t[21] - '0') * 10 + (t[22] - '0');
                e->deviceHash = hashBytes(e->device, e->deviceLength);
                e->beaconHash = hashBytes(e->beacon, 42);
                __builtin_prefetch(home(&devices, e->deviceHash));
                __builtin_prefetch(home(&beacons, e->beaconHash));
                p = newline + 1;
            }
            if (n == 0) break;
            // Stage 2: number the devices and beacons, prefetch their state.
            int32_t deviceNumbers[BATCH], beaconNumbers[BATCH];
            for (int i = 0; i < n; i++) {
                Event *e = &batch[i];
                deviceNumbers[i] = number(&devices, e->device, e->deviceLength, e->deviceHash, 1);
                __builtin_prefetch(&deviceState[deviceNumbers[i]]);
                int known = beacons.count;
                int32_t b = number(&beacons, e->beacon, 42, e->beaconHash, 1);
                if (beacons.count > known) { // first seen: where its candidates are
                    beaconList[b].uuid = number(&uuids, e->beacon, 32, hashBytes(e->beacon, 32), 0);
                    beaconList[b].pid = number(&pids, e->beacon, 42, e->beaconHash, 0);
                }
                beaconNumbers[i] = b;
            }
            for (int i = 0; i < n; i++) __builtin_prefetch(deviceState[deviceNumbers[i]].entries);
            // Stage 3: decide, record, write.
            for (int i = 0; i < n; i++) {
                Event *e = &batch[i];
                events++;
                Beacon beacon = beaconList[beaconNumbers[i]];
                int trigger = e->enter ? 0 : 1;
                int32_t candidates[MAX_CANDIDATES];
                int candidateCount = 0;
                if (beacon.uuid >= 0) {
                    List l = byUUID[beacon.uuid][trigger];
                    memcpy(candidates, l.items, sizeof(int32_t) * l.count);
                    candidateCount = l.count;
                }
                if (beacon.pid >= 0) {
                    List l = byPid[beacon.pid][trigger];
                    for (int k = 0; k < l.count; k++) candidates[candidateCount++] = l.items[k];
                }
                Device *d = &deviceState[deviceNumbers[i]];
                int32_t fired[MAX_CANDIDATES];
                int64_t fireDates[MAX_CANDIDATES];
                int firedCount = 0;
                for (int k = 0; k < candidateCount; k++) {
                    int32_t campaign = candidates[k];
                    const Row *row = &rows[campaign];
                    if (row->frames) {
                        int live = 0;
                        for (const int64_t *f = &frames[row->framesStart], *last = f + 2 * row->frames; f < last; f += 2)
                            if (f[0] <= e->ms && e->ms < f[1]) { live = 1; break; }
                        if (!live) continue;
                    }
                    if (row->keepsState) {
                        const Entry *hit = NULL;
                        for (int j = 0; j < d->count; j++) if (d->entries[j].campaign == campaign) { hit = &d->entries[j]; break; }
                        if (hit && (row->onceOnly || e->ms < hit->time + row->interval)) continue;
                    }
                    fired[firedCount] = campaign;
                    fireDates[firedCount++] = e->ms + row->delay;
                }
                for (int k = 0; k < firedCount; k++) {
                    if (!rows[fired[k]].keepsState) continue;
                    int j = 0;
                    while (j < d->count && d->entries[j].campaign != fired[k]) j++;
                    if (j == d->count) {
                        if (d->count == d->capacity) {
                            d->capacity = d->capacity ? d->capacity * 2 : 4;
                            d->entries = grow(d->entries, sizeof(Entry) * d->capacity);
                        }
                        d->entries[d->count++].campaign = fired[k];
                    }
                    d->entries[j].time = e->ms;
                }
                // Records in fire date order, then campaign order.
                for (int k = 1; k < firedCount; k++) {
                    int32_t c = fired[k];
                    int64_t date = fireDates[k];
                    int j = k;
                    for (; j > 0 && (date < fireDates[j - 1] || (date == fireDates[j - 1] && c < fired[j - 1])); j--) {
                        fired[j] = fired[j - 1];
                        fireDates[j] = fireDates[j - 1];
                    }
                    fired[j] = c;
                    fireDates[j] = date;
                }
                for (int k = 0; k < firedCount; k++) {
                    const Campaign *c = &campaigns[fired[k]];
                    char *head = heads + headsUsed, *w = head;
#define PUT(bytes, count) (memcpy(w, bytes, count), w += (count))
#define LITERAL(text) PUT(text, sizeof(text) - 1)
                    LITERAL("{\"kind\":\"notification\",\"id\":\""); PUT(c->eid, c->eidLength); LITERAL(":");
                    PUT(e->device, e->deviceLength); LITERAL(":"); PUT(e->id, e->idLength);
                    LITERAL("\",\"campaign\":\""); PUT(c->eid, c->eidLength);
                    LITERAL("\",\"device\":\""); PUT(e->device, e->deviceLength);
                    LITERAL("\",\"event\":\""); PUT(e->id, e->idLength);
                    if (e->enter) LITERAL("\",\"trigger\":\"enter\",\"beacon\":\""); else LITERAL("\",\"trigger\":\"exit\",\"beacon\":\"");
                    PUT(e->beacon, 42);
                    LITERAL("\",\"fireDate\":\""); PUT(e->time, 24); LITERAL("\",");
                    vectors[vectorCount++] = (struct iovec){ head, w - head };
                    vectors[vectorCount++] = (struct iovec){ c->tail, c->tailLength };
                    headsUsed += w - head;
                    if (deliveries == deliveryCapacity) ledger = grow(ledger, sizeof(Delivery) * (deliveryCapacity *= 2));
                    ledger[deliveries++] = (Delivery){ hashBytes(e->id, e->idLength), deviceNumbers[i], fired[k], fireDates[k] };
                    if (printIDs) printf("%s:%.*s:%.*s\n", c->eid, e->deviceLength, e->device, e->idLength, e->id);
                    records++;
                }
                // Records out before the heads' buffer or the vectors run out (heads are
                // copies: nothing points into the lines).
                if (vectorCount > 2 * 65536 - 2 * MAX_CANDIDATES || headsUsed > HEADS - 256 * MAX_CANDIDATES) {
                    if (!printIDs) writeAll(out, vectors, vectorCount);
                    vectorCount = 0;
                    headsUsed = 0;
                }
            }
        }
        have = end - p;
        memmove(buffer, p, have);
    }
    if (!printIDs) writeAll(out, vectors, vectorCount);
    double finished = now();
    fprintf(stderr, "%ld events, %ld records (%zu deliveries), %d devices, %d beacons: loading %.3f s, events %.3f s (%.0f k events/s)\n",
            events, records, deliveries, devices.count, beacons.count, loaded - start, finished - loaded, events / (finished - loaded) / 1000);
    return 0;
}
