/* A small 0x88 perft for the emulator benchmark: CPU-heavy, no peripherals.
 * Counts the legal move tree of the initial position (castling and en
 * passant are not needed there up to depth 4, promotions never happen).
 * Build for the AVR with -DAVR_BENCH; on the host it prints its result.
 */
#include <stdint.h>

#define EMPTY 0
enum { P = 1, N, B, R, Q, K };
#define WHITE 0x08
#define BLACK 0x10
#define COLOR(p) ((p) & 0x18)
#define KIND(p) ((p) & 7)

static uint8_t board[128];
static uint8_t kings[2];

static const int8_t knight_dirs[8] = { 33, 31, 18, 14, -33, -31, -18, -14 };
static const int8_t king_dirs[8] = { 1, -1, 16, -16, 17, 15, -17, -15 };
static const uint8_t back_rank[8] = { R, N, B, Q, K, B, N, R };

static void setup(void) {
    for (uint8_t f = 0; f < 8; f++) {
        board[f] = back_rank[f] | WHITE;
        board[16 + f] = P | WHITE;
        board[96 + f] = P | BLACK;
        board[112 + f] = back_rank[f] | BLACK;
    }
    kings[0] = 4;
    kings[1] = 116;
}

static uint8_t attacked(uint8_t sq, uint8_t by) {
    /* pawns */
    int8_t pd = by == WHITE ? -16 : 16;
    for (int8_t s = -1; s <= 1; s += 2) {
        uint8_t t = sq + pd + s;
        if (!(t & 0x88) && board[t] == (P | by)) return 1;
    }
    for (uint8_t i = 0; i < 8; i++) {
        uint8_t t = sq + knight_dirs[i];
        if (!(t & 0x88) && board[t] == (N | by)) return 1;
        t = sq + king_dirs[i];
        if (!(t & 0x88) && board[t] == (K | by)) return 1;
    }
    for (uint8_t i = 0; i < 8; i++) {
        int8_t d = king_dirs[i];
        uint8_t diag = i >= 4;
        uint8_t t = sq + d;
        while (!(t & 0x88)) {
            uint8_t p = board[t];
            if (p) {
                if (COLOR(p) == by && (KIND(p) == Q || KIND(p) == (diag ? B : R))) return 1;
                break;
            }
            t += d;
        }
    }
    return 0;
}

static uint32_t perft(uint8_t depth, uint8_t side);

/* Makes from->to, recurses if legal, unmakes; returns the leaf count. */
static uint32_t try_move(uint8_t from, uint8_t to, uint8_t depth, uint8_t side) {
    uint8_t moved = board[from], captured = board[to];
    uint8_t ki = side == WHITE ? 0 : 1;
    board[to] = moved;
    board[from] = EMPTY;
    if (KIND(moved) == K) kings[ki] = to;
    uint32_t n = 0;
    if (!attacked(kings[ki], side ^ (WHITE | BLACK)))
        n = depth > 1 ? perft(depth - 1, side ^ (WHITE | BLACK)) : 1;
    if (KIND(moved) == K) kings[ki] = from;
    board[from] = moved;
    board[to] = captured;
    return n;
}

static uint32_t perft(uint8_t depth, uint8_t side) {
    uint32_t nodes = 0;
    for (uint8_t sq = 0; sq < 128; sq++) {
        if (sq & 0x88) { sq += 7; continue; }
        uint8_t p = board[sq];
        if (COLOR(p) != side) continue;
        uint8_t kind = KIND(p);
        if (kind == P) {
            int8_t fwd = side == WHITE ? 16 : -16;
            uint8_t t = sq + fwd;
            if (!(t & 0x88) && !board[t]) {
                nodes += try_move(sq, t, depth, side);
                uint8_t start = side == WHITE ? 1 : 6;
                if ((sq >> 4) == start && !board[t + fwd]) nodes += try_move(sq, t + fwd, depth, side);
            }
            for (int8_t s = -1; s <= 1; s += 2) {
                uint8_t c = t + s;
                if (!(c & 0x88) && board[c] && COLOR(board[c]) != side) nodes += try_move(sq, c, depth, side);
            }
        } else if (kind == N || kind == K) {
            const int8_t *dirs = kind == N ? knight_dirs : king_dirs;
            for (uint8_t i = 0; i < 8; i++) {
                uint8_t t = sq + dirs[i];
                if (!(t & 0x88) && COLOR(board[t]) != side) nodes += try_move(sq, t, depth, side);
            }
        } else {
            uint8_t first = kind == B ? 4 : 0, last = kind == R ? 4 : 8;
            for (uint8_t i = first; i < last; i++) {
                int8_t d = king_dirs[i];
                uint8_t t = sq + d;
                while (!(t & 0x88)) {
                    if (board[t]) {
                        if (COLOR(board[t]) != side) nodes += try_move(sq, t, depth, side);
                        break;
                    }
                    nodes += try_move(sq, t, depth, side);
                    t += d;
                }
            }
        }
    }
    return nodes;
}

#ifdef AVR_BENCH
#include <avr/io.h>
#include <avr/interrupt.h>
#include <avr/sleep.h>
#include "avr/avr_mcu_section.h"
AVR_MCU(8000000, "atmega644");
AVR_MCU_VCD_FILE("trace.vcd", 1000);
const struct avr_mmcu_vcd_trace_t _trace[] _MMCU_ = {
    { AVR_MCU_VCD_SYMBOL("GPIOR0"), .what = (void *)&GPIOR0, },
};
/* Results stream through GPIOR0 as nibbles; bit 4 toggles so that every
 * write is a change simavr's trace records. */
static uint8_t toggle;
static void emit_nibble(uint8_t n) { toggle ^= 0x10; GPIOR0 = (n & 15) | toggle; }
static void emit32(uint32_t v) { for (int8_t s = 28; s >= 0; s -= 4) emit_nibble(v >> s); }
volatile uint32_t result;
int main(void) {
    setup();
    emit_nibble(0xA); /* start mark */
    result = perft(PERFT_DEPTH, WHITE);
    emit32(result);
    cli();
    sleep_cpu();
}
#else
#include <stdio.h>
int main(void) {
    setup();
    for (uint8_t d = 1; d <= 5; d++) printf("perft %u = %lu\n", d, (unsigned long)perft(d, WHITE));
    return 0;
}
#endif
