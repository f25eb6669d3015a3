// The floor under replay's output: reads an events file, finds its lines, and writes for each
// line as many bytes as replay's records on the benchmark (1.8 records an event, a 220-byte head
// taken from the line and a 760-byte tail from a pool of 24,469, as many as the benchmark's cached
// tails) to /dev/null, doing no parsing and no matching. With --copy the records are copied into a
// 1 MiB buffer and written with write(2); without it the tails are handed to writev(2) by
// reference, as `replay` does. See docs/performance-history.md.
// --records R and --record-bytes N write R records an event on average (R may have a fraction),
// each N bytes long (a head of N - 760 bytes and the 760-byte tail): replay's own figures on
// another workload, for the same bytes out (scripts/output-heavy.sh).
//   cc -O2 -o /tmp/output-floor scripts/output-floor.c && taskset -c 1 /tmp/output-floor .build/bench/events.jsonl [--copy] [--records R --record-bytes N]
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum { TAILS = 24469, TAIL = 760, HEADMAX = 4096, VECTORS = 1024, OUT = 1 << 20, IN = 1 << 20 };
static size_t HEAD = 220;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s EVENTS.jsonl [--copy]\n", argv[0]); return 2; }
    int copy = 0;
    double perEvent = 0;
    for (int a = 2; a < argc; a++) {
        if (strcmp(argv[a], "--copy") == 0) copy = 1;
        else if (strcmp(argv[a], "--records") == 0 && a + 1 < argc) perEvent = atof(argv[++a]);
        else if (strcmp(argv[a], "--record-bytes") == 0 && a + 1 < argc) {
            long n = atol(argv[++a]) - TAIL;
            HEAD = n < 1 ? 1 : n > HEADMAX ? HEADMAX : (size_t)n;
        }
    }
    double start = now();
    char *pool = malloc((size_t)TAILS * TAIL);
    for (size_t i = 0; i < (size_t)TAILS * TAIL; i++) pool[i] = 'a' + i % 26;
    int in = open(argv[1], O_RDONLY), out = open("/dev/null", O_WRONLY);
    if (in < 0 || out < 0) { perror("open"); return 2; }
    char *buffer = malloc(IN), *own = malloc(OUT + 2 * (HEADMAX + TAIL + 1));
    struct iovec vectors[VECTORS];
    size_t have = 0, used = 0, lines = 0, records = 0, bytes = 0;
    int count = 0;
    uint64_t random = 88172645463325252ull;
    for (;;) {
        ssize_t n = read(in, buffer + have, IN - have);
        if (n <= 0) break;
        have += n;
        char *p = buffer, *end = buffer + have;
        for (char *newline; (newline = memchr(p, '\n', end - p)); p = newline + 1) {
            lines++;
            uint64_t hash = 0;
            for (char *q = p; q < p + 40 && q < newline; q++) hash = hash * 31 + (unsigned char)*q;
            random ^= random << 13; random ^= random >> 7; random ^= random << 17;
            int k = random % 100 < 89 ? 2 : 1;
            if ((random >> 20) % 100 < 5) k = 0;
            if (perEvent > 0) k = (int)perEvent + ((random >> 24) % 1000 < (uint64_t)((perEvent - (int)perEvent) * 1000));
            size_t length = (size_t)(newline - p);
            for (int r = 0; r < k; r++) {
                const char *tail = pool + (hash + r * 7919u + (random >> 32)) % TAILS * TAIL;
                char *head = own + used;
                memcpy(head, p, HEAD < length ? HEAD : length);
                used += HEAD;
                if (copy) {
                    memcpy(own + used, tail, TAIL);
                    used += TAIL;
                    own[used++] = '\n';
                } else {
                    vectors[count++] = (struct iovec){head, HEAD};
                    vectors[count++] = (struct iovec){(void *)tail, TAIL};
                }
                records++;
                bytes += HEAD + TAIL + copy;
                if (used >= OUT || count >= VECTORS - 2) {
                    if (copy) write(out, own, used); else writev(out, vectors, count);
                    used = 0;
                    count = 0;
                }
            }
        }
        memmove(buffer, p, end - p);
        have = end - p;
    }
    if (copy) write(out, own, used); else writev(out, vectors, count);
    double seconds = now() - start;
    printf("%zu lines, %zu records, %.0f MB out in %.3f s: %.2f M events/s (%s)\n", lines, records, bytes / 1e6,
           seconds, lines / seconds / 1e6, copy ? "records copied" : "tails by reference");
    return 0;
}
