/* Compiled certified kernel: the tree walk of exactdp.engine.kernel.tail_sums
 * (binomial rows included) in C, with a 128-bit software float and directed
 * rounding.  Built by setup.py as the optional extension exactdp.engine._ckernel;
 * the Python glue is exactdp/engine/ckernel.py, which also states the
 * certificate (every quantity is a nonnegative mass or moment; lower bounds are
 * rounded down, upper bounds up; integer threshold comparisons are exact).
 *
 * Numbers.  uf = M * 2^e with M a 128-bit integer in [2^127, 2^128) (or M = 0
 * for zero), so truncating an exact value to uf loses a relative amount < 2^-127.
 * Binomial rows store round-down values only, together with a count K such that
 * every stored value v satisfies v >= exact * (1 - 2^-127)^K; then
 * exact <= v * (1 + 4 K 2^-127) (valid while 2 K 2^-127 <= 1), the row's factor F.
 *
 * Integers.  Thresholds are compared in exact two's-complement integers of NL
 * 64-bit limbs (the Python side checks that every value fits).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

typedef unsigned __int128 u128;
typedef uint64_t u64;
typedef int64_t i64;

/* ------------------------------------------------------------------ uf */
typedef struct { u64 hi, lo; i64 e; } uf;
typedef struct { uf lo, hi; } iv;                 /* an interval of nonnegative reals */
#pragma pack(push, 4)
typedef struct { u64 hi, lo; int32_t e; } ufc;   /* compact, for the rows (20 bytes) */
#pragma pack(pop)

static const uf UF0 = {0, 0, 0};
static const uf UF1 = {1ULL << 63, 0, -127};

static inline int uf_zero(uf a) { return a.hi == 0; }
static inline uf ufc_get(const ufc *c) { uf r = {c->hi, c->lo, c->e}; return r; }
static inline void ufc_set(ufc *c, uf a) { c->hi = a.hi; c->lo = a.lo; c->e = (int32_t)a.e; }

/* a + 1 ulp (for rounding up) */
static inline uf uf_inc(uf a) {
    a.lo++;
    if (a.lo == 0) {
        a.hi++;
        if (a.hi == 0) { a.hi = 1ULL << 63; a.e++; }
    }
    return a;
}

/* Normalize the 256-bit integer r[3]:r[2]:r[1]:r[0] times 2^e (plus an
 * extra positive amount below the last bit if sticky) to a uf, rounding down
 * or up. */
static uf norm256(u64 r3, u64 r2, u64 r1, u64 r0, i64 e, int sticky, int up) {
    uf out;
    int shift;   /* number of leading zero bits of the 256-bit value */
    if (r3) shift = __builtin_clzll(r3);
    else if (r2) shift = 64 + __builtin_clzll(r2);
    else if (r1) shift = 128 + __builtin_clzll(r1);
    else if (r0) shift = 192 + __builtin_clzll(r0);
    else {
        if (sticky && up) { /* a positive amount smaller than 2^e: bound it by 2^e */
            out.hi = 1ULL << 63; out.lo = 0; out.e = e - 127; return out;
        }
        return UF0;
    }
    /* shift left by `shift` (limb then bits) */
    int ls = shift / 64, bs = shift % 64;
    u64 w[4] = {r0, r1, r2, r3}, v[4] = {0, 0, 0, 0};
    for (int i = 3; i >= ls; i--) v[i] = w[i - ls];
    if (bs) {
        for (int i = 3; i > 0; i--) v[i] = (v[i] << bs) | (v[i - 1] >> (64 - bs));
        v[0] <<= bs;
    }
    out.hi = v[3]; out.lo = v[2];
    out.e = e + 128 - shift;
    int inexact = sticky || v[1] || v[0];
    if (up && inexact) out = uf_inc(out);
    return out;
}

/* r2:r1:r0 * 2^e (r2 != 0) truncated to a uf; *inexact set when bits were dropped */
static inline uf norm192(u64 r2, u64 r1, u64 r0, i64 e, int *inexact) {
    uf out;
    int sh = __builtin_clzll(r2);
    if (sh == 0) { out.hi = r2; out.lo = r1; *inexact = r0 != 0; out.e = e + 64; }
    else {
        out.hi = (r2 << sh) | (r1 >> (64 - sh)); out.lo = (r1 << sh) | (r0 >> (64 - sh));
        *inexact = (r0 << sh) != 0; out.e = e + 64 - sh;
    }
    return out;
}

static inline __attribute__((always_inline)) uf uf_mul(uf a, uf b, int up) {
    if (uf_zero(a) || uf_zero(b)) return UF0;
    u128 hh = (u128)a.hi * b.hi, hl = (u128)a.hi * b.lo, lh = (u128)a.lo * b.hi, ll = (u128)a.lo * b.lo;
    u64 r0 = (u64)ll;
    u128 mid = (ll >> 64) + (u64)hl + (u64)lh;
    u64 r1 = (u64)mid;
    u128 top = hh + (hl >> 64) + (lh >> 64) + (mid >> 64);
    /* the product is in [2^254, 2^256): shift left by s = 1 when its top bit is clear
       (branch-free: the two cases are about equally likely) */
    u64 th = (u64)(top >> 64), tl = (u64)top;
    u64 s = (th >> 63) ^ 1;
    uf out;
    out.hi = (th << s) | ((tl >> 63) & s); out.lo = (tl << s) | ((r1 >> 63) & s);
    out.e = a.e + b.e + 128 - (i64)s;
    if (up && ((r1 << s) | r0)) out = uf_inc(out);
    return out;
}

static inline uf uf_mul_u64(uf a, u64 k, int up) {
    if (uf_zero(a) || k == 0) return UF0;
    u128 l = (u128)a.lo * k, h = (u128)a.hi * k;
    u64 r0 = (u64)l;
    u128 s = (l >> 64) + (u64)h;
    u64 r1 = (u64)s;
    u64 r2 = (u64)(h >> 64) + (u64)(s >> 64);
    if (r2 == 0) return norm256(0, 0, r1, r0, a.e, 0, up);
    int inexact; uf out = norm192(r2, r1, r0, a.e, &inexact);
    if (up && inexact) out = uf_inc(out);
    return out;
}

static inline uf uf_div_u64(uf a, u64 k, int up) {
    if (uf_zero(a)) return UF0;
    /* (a.hi, a.lo, 0) / k: three-limb long division */
    u128 n = a.hi;
    u64 q2 = (u64)(n / k); u64 rem = (u64)(n % k);
    n = ((u128)rem << 64) | a.lo;
    u64 q1 = (u64)(n / k); rem = (u64)(n % k);
    n = ((u128)rem << 64);
    u64 q0 = (u64)(n / k); rem = (u64)(n % k);
    return norm256(0, q2, q1, q0, a.e - 64, rem != 0, up);
}

static inline uf uf_from_u64(u64 k) { return norm256(0, 0, 0, k, 0, 0, 0); }

static inline int uf_lt(uf a, uf b) {   /* a < b */
    if (uf_zero(b)) return 0;
    if (uf_zero(a)) return 1;
    if (a.e != b.e) return a.e < b.e;
    if (a.hi != b.hi) return a.hi < b.hi;
    return a.lo < b.lo;
}

static inline __attribute__((always_inline)) uf uf_add(uf a, uf b, int up) {
    if (uf_zero(a)) return b;
    if (uf_zero(b)) return a;
    if (a.e < b.e) { uf t = a; a = b; b = t; }
    u64 d = (u64)(a.e - b.e);
    u128 A = ((u128)a.hi << 64) | a.lo, B = ((u128)b.hi << 64) | b.lo, Bs;
    int sticky;
    /* B 2^-d and whether bits were shifted out (branch-free for 0 < d < 128) */
    if (d < 128) {
        u64 dd = d ? d : 1;                      /* d = 0: no shift, nothing dropped */
        Bs = d ? B >> dd : B;
        sticky = d ? (B << (128 - dd)) != 0 : 0;
    } else { Bs = 0; sticky = 1; }
    u128 S = A + Bs;
    u64 c = S < A;                               /* a 129-bit sum: shift right by one */
    u64 sh = (u64)(S >> 64), sl = (u64)S;
    sticky |= (int)(sl & c);
    uf out;
    out.hi = (sh >> c) | (c << 63); out.lo = (sl >> c) | ((sh & c) << 63); out.e = a.e + (i64)c;
    if (up && sticky) out = uf_inc(out);
    return out;
}

/* a + b rounded down: uf_add(a, b, 0) without the sticky bits */
static inline __attribute__((always_inline)) uf uf_add_dn(uf a, uf b) {
    if (uf_zero(a)) return b;
    if (uf_zero(b)) return a;
    i64 d = a.e - b.e;
    if (d < 0) { uf t = a; a = b; b = t; d = -d; }
    if (d >= 128) return a;                      /* b < ulp(a): dropped */
    u128 A = ((u128)a.hi << 64) | a.lo, B = (((u128)b.hi << 64) | b.lo) >> d;
    u128 S = A + B;
    u64 c = S < A;                               /* a 129-bit sum: shift right by one */
    u64 sh = (u64)(S >> 64), sl = (u64)S;
    uf out;
    out.hi = (sh >> c) | (c << 63); out.lo = (sl >> c) | ((sh & c) << 63); out.e = a.e + (i64)c;
    return out;
}

/* a - b for a >= b >= 0 (the result is clamped at 0 when a <= b). */
static uf uf_sub(uf a, uf b, int up) {
    if (uf_zero(b)) return a;
    if (!uf_lt(b, a)) return UF0;
    i64 d = a.e - b.e;                 /* >= 0 since a > b */
    if (d >= 128) {                    /* 0 < b < ulp(a) */
        if (!up) {
            u64 lo = a.lo - 1, hi = a.hi - (a.lo == 0);
            return norm256(0, 0, hi, lo, a.e, 1, 0);
        }
        return a;
    }
    /* A = a.M << 128, B = b.M << (128 - d), both exact in 256 bits */
    u64 A[4] = {0, 0, a.lo, a.hi}, B[4] = {0, 0, 0, 0};
    int s = (int)(128 - d), ls = s / 64, bs = s % 64;
    u64 w[4] = {b.lo, b.hi, 0, 0};
    for (int i = 3; i >= ls; i--) B[i] = w[i - ls];
    if (bs) { for (int i = 3; i > 0; i--) B[i] = (B[i] << bs) | (B[i - 1] >> (64 - bs)); B[0] <<= bs; }
    u64 R[4]; u64 borrow = 0;
    for (int i = 0; i < 4; i++) {
        u64 x = A[i] - B[i];
        u64 b1 = A[i] < B[i];
        u64 y = x - borrow;
        u64 b2 = x < borrow;
        R[i] = y; borrow = b1 | b2;
    }
    return norm256(R[3], R[2], R[1], R[0], a.e - 128, 0, up);
}

/* (1 - 2^-127)^-K <= 1 + 4 K 2^-127 (for 2 K 2^-127 <= 1): exact as a uf */
static uf uf_factor(u64 K) {
    uf f = {1ULL << 63, 4 * K, -127};
    return f;
}

static inline iv iv_mul(iv a, iv b) { iv r = {uf_mul(a.lo, b.lo, 0), uf_mul(a.hi, b.hi, 1)}; return r; }
static inline iv iv_add(iv a, iv b) { iv r = {uf_add_dn(a.lo, b.lo), uf_add(a.hi, b.hi, 1)}; return r; }
static inline iv iv_mul_u64(iv a, u64 k) { iv r = {uf_mul_u64(a.lo, k, 0), uf_mul_u64(a.hi, k, 1)}; return r; }
static inline iv iv_pt(uf a) { iv r = {a, a}; return r; }

/* ------------------------------------------------------------------ big integers */
#define NL 8
typedef struct { u64 w[NL]; } big;       /* two's complement, w[0] least significant */

static inline int big_neg(const big *a, int nl) { return (a->w[nl - 1] >> 63) != 0; }
/* The limb loops below run with the walk's nl (2..NL); the common small widths are
 * dispatched to copies with a constant trip count, which the compiler unrolls. */
#define BIG_DISPATCH(call) do { if (nl == 3) { const int n_ = 3; call; } \
                                else if (nl == 2) { const int n_ = 2; call; } \
                                else if (nl == 4) { const int n_ = 4; call; } \
                                else { const int n_ = nl; call; } } while (0)

static inline __attribute__((always_inline)) int big_iszero_n(const big *a, const int n) {
    u64 x = 0;
    for (int i = 0; i < n; i++) x |= a->w[i];
    return x == 0;
}
static inline int big_iszero(const big *a, int nl) { int z; BIG_DISPATCH(z = big_iszero_n(a, n_)); return z; }
static inline int big_sign(const big *a, int nl) { return big_neg(a, nl) ? -1 : (big_iszero(a, nl) ? 0 : 1); }

/* r = a + k * b with b >= 0 and k >= 0 */
static inline __attribute__((always_inline)) void big_addmul_n(big *r, const big *a, u64 k, const big *b, const int n) {
    u64 carry_m = 0, carry_a = 0;
    for (int i = 0; i < n; i++) {
        u128 p = (u128)b->w[i] * k + carry_m;
        carry_m = (u64)(p >> 64);
        u128 s = (u128)a->w[i] + (u64)p + carry_a;
        r->w[i] = (u64)s;
        carry_a = (u64)(s >> 64);
    }
}
static inline void big_addmul(big *r, const big *a, u64 k, const big *b, int nl) {
    BIG_DISPATCH(big_addmul_n(r, a, k, b, n_));
}

static inline __attribute__((always_inline)) void big_negate_n(big *r, const big *a, const int n) {
    u64 c = 1;
    for (int i = 0; i < n; i++) {
        u64 x = ~a->w[i] + c;
        c = c & (x == 0);
        r->w[i] = x;
    }
}
static inline __attribute__((always_inline)) void big_negate(big *r, const big *a, int nl) { BIG_DISPATCH(big_negate_n(r, a, n_)); }

static inline __attribute__((always_inline)) void big_add_n(big *r, const big *a, const big *b, const int n) {
    u64 c = 0;
    for (int i = 0; i < n; i++) {
        u128 s = (u128)a->w[i] + b->w[i] + c;
        r->w[i] = (u64)s; c = (u64)(s >> 64);
    }
}
static inline __attribute__((always_inline)) void big_add(big *r, const big *a, const big *b, int nl) { BIG_DISPATCH(big_add_n(r, a, b, n_)); }

/* r = a - b */
static inline __attribute__((always_inline)) void big_sub_n(big *r, const big *a, const big *b, const int n) {
    u64 c = 0;
    for (int i = 0; i < n; i++) {
        u128 d = (u128)a->w[i] - b->w[i] - c;
        r->w[i] = (u64)d; c = (u64)(d >> 64) & 1;
    }
}
static inline __attribute__((always_inline)) void big_sub(big *r, const big *a, const big *b, int nl) { BIG_DISPATCH(big_sub_n(r, a, b, n_)); }

/* |a| as a uf interval [floor, ceil] (exact when it fits) */
static inline void big_abs_iv(const big *a, int nl, uf *lo, uf *hi) {
    u64 t[NL];
    if (big_neg(a, nl)) {                        /* |a| = -a (two's complement) */
        u64 c = 1;
        for (int i = 0; i < nl; i++) { u64 x = ~a->w[i] + c; c = c && x == 0; t[i] = x; }
    } else for (int i = 0; i < nl; i++) t[i] = a->w[i];
    int top = nl - 1;
    while (top >= 0 && t[top] == 0) top--;
    if (top < 0) { *lo = *hi = UF0; return; }
    if (top <= 1) {                 /* exact: at most 128 bits */
        u64 h = t[1], l = t[0]; i64 e = 0;
        if (top == 0) { h = l; l = 0; e = -64; }
        int sh = __builtin_clzll(h);
        if (sh) { h = (h << sh) | (l >> (64 - sh)); l <<= sh; }
        lo->hi = h; lo->lo = l; lo->e = e - sh;
        *hi = *lo; return;
    }
    int sticky = 0;
    for (int i = 0; i < top - 2; i++) sticky |= t[i] != 0;
    int inexact;
    *lo = norm192(t[top], t[top - 1], t[top - 2], (i64)64 * (top - 2), &inexact);
    *hi = (inexact || sticky) ? uf_inc(*lo) : *lo;
}

/* a >= 0 as a uf, rounded down (exact when it fits in 128 bits) */
static inline uf big_floor_uf(const big *a, int nl) {
    int top = nl - 1;
    while (top >= 0 && a->w[top] == 0) top--;
    if (top < 0) return UF0;
    uf r;
    if (top <= 1) {
        u64 h = a->w[1], l = a->w[0]; i64 e = 0;
        if (top == 0) { h = l; l = 0; e = -64; }
        int sh = __builtin_clzll(h);
        if (sh) { h = (h << sh) | (l >> (64 - sh)); l <<= sh; }
        r.hi = h; r.lo = l; r.e = e - sh;
        return r;
    }
    int inexact;
    return norm192(a->w[top], a->w[top - 1], a->w[top - 2], (i64)64 * (top - 2), &inexact);
}

/* max(a, 0), rounded up */
static inline uf big_pos_up(const big *a, int nl) {
    if (big_neg(a, nl)) return UF0;
    uf lo, hi; big_abs_iv(a, nl, &lo, &hi); return hi;
}

static inline double big_to_double(const big *a, int nl) {
    big t; int neg = big_neg(a, nl);
    if (neg) big_negate(&t, a, nl); else memcpy(t.w, a->w, (size_t)nl * sizeof(u64));
    int k = nl - 1;                        /* the most significant nonzero limb */
    while (k > 0 && t.w[k] == 0) k--;
    double x = k >= 1 ? ldexp((double)t.w[k] * 18446744073709551616.0 + (double)t.w[k - 1], 64 * (k - 1))
                      : (double)t.w[0];
    return neg ? -x : x;
}

/* sign of a + t * b (b > 0, t >= 0) */
static inline int sign_at(const big *a, i64 t, const big *b, int nl) {
    big r; big_addmul(&r, a, (u64)t, b, nl);
    return big_sign(&r, nl);
}

/* smallest t in [0, m] with sign(a + t b) >= s (b > 0, so the sign is nondecreasing in t), or
   m + 1.  t0 is a floating-point guess: the answer is bracketed by galloping from it (steps
   1, 2, 4, ...) and then bisected, so a guess off by d costs O(log d) exact evaluations (a
   linear walk from a bad guess -- e.g. a weight that fits in the lowest limb -- took ~2^62). */
static i64 first_at_least(const big *a, const big *b, i64 t0, i64 m, int nl, int s) {
    i64 lo, hi;                            /* the answer lies in (lo, hi] */
    if (t0 < 0) t0 = 0;
    if (t0 > m + 1) t0 = m + 1;
    if (t0 > m || sign_at(a, t0, b, nl) >= s) {
        hi = t0;
        for (i64 step = 1;; step <<= 1) {
            if (step > hi) { lo = -1; break; }
            i64 c = hi - step;
            if (sign_at(a, c, b, nl) < s) { lo = c; break; }
            hi = c;
        }
    } else {
        lo = t0;
        for (i64 step = 1;; step <<= 1) {
            if (step > m - lo) { hi = m + 1; break; }
            i64 c = lo + step;
            if (sign_at(a, c, b, nl) >= s) { hi = c; break; }
            lo = c;
        }
    }
    while (hi - lo > 1) {
        i64 mid = lo + (hi - lo) / 2;
        if (sign_at(a, mid, b, nl) >= s) hi = mid; else lo = mid;
    }
    return hi;
}

/* smallest t in [0, m] with a + t b > 0 (b > 0), or m + 1 */
static i64 first_pos(const big *a, const big *b, double bd, i64 m, int nl) {
    double x = -big_to_double(a, nl) / bd;
    i64 t;
    if (!(x == x) || x > (double)(m + 1)) t = m + 1;
    else if (x < 0) t = 0;
    else t = (i64)floor(x) + 1;
    return first_at_least(a, b, t, m, nl, 1);
}

/* largest t in [0, m] with a + t b < 0 (b > 0), or -1 */
static i64 last_neg(const big *a, const big *b, double bd, i64 m, int nl) {
    double x = -big_to_double(a, nl) / bd;
    i64 t;
    if (!(x == x) || x < 0) t = 0;
    else if (x > (double)m) t = m + 1;
    else t = (i64)ceil(x);
    return first_at_least(a, b, t, m, nl, 0) - 1;
}

/* ------------------------------------------------------------------ binomial rows */
/* which side of tau a walk sums (the query's; the tree is the same) */
#define SIDE_UP 1
#define SIDE_LO 2
#define SIDE_NOX 4      /* probabilities only: no excess sums, second-order row sums, drop bounds */
#define SIDE_MASSCUT 8  /* rows cut by the mass of their users (row_t.wexp), certified walks */
/* Rows cut by mass: a row (l, m) is read only by nodes (l, m) of mass <= P.hi (levels >= 2) or
 * by leaves of mass <= cm_hi (level 1), and a cell's contribution to the sums is its value
 * times that mass.  A row built for users of mass <= 2^wexp (wexp <= 0) stops at the cut
 * vcut = row_tol 2^-wexp instead of row_tol (tail_ok with vcut), so that every user's
 * share of the row's tails is at most vcut 2^wexp = row_tol (absolute): the tree is the
 * same (a child beyond the window has mass < P.hi vcut <= row_tol < tol) and the leaves'
 * tails are added per leaf in absolute terms (leaf_children).  A user heavier than 2^wexp
 * rebuilds the row for 2^(its exponent + MASS_SLACK) (get_row); the slack bounds the
 * rebuilds (a window grows like sqrt(log(1 / vcut)), so the slack costs few cells). */
#define MASS_SLACK 12

typedef struct {
    i64 m, ka, kb, n;
    ufc *cells;     /* round-down values (sums exclude the tails), interleaved: see PMF .. PRE2 */
    uf F;                                   /* exact <= stored * F */
    uf tl, tr, tl2, tr2;                    /* upper bounds of the tails */
    i64 amode, acnt; uf apm;                /* anchor: pmf at the mode, rounded down, its count */
    u64 used;                               /* last use (LRU clock) */
    i64 wexp;                               /* built for users of mass <= 2^wexp (SIDE_MASSCUT) */
    int st, osuf, osuf2, opre, opre2;       /* the cell layout (rows_ctx.st ..): see PMF .. PRE2 */
    ufc *pmf0, *suf0, *suf20, *pre0, *pre20;    /* where each array's index 0 is (row_bases) */
} row_t;

/* A row's arrays over its window (index i = k - ka, 0 <= i < n), interleaved in cells and
 * shifted so that cell i + 2 holds what a leaf with ka = k needs (suf[i], suf2[i + 1],
 * pre[i - 1], pre2[i - 2], pmf[i - 1]): one cache line or two per leaf instead of five
 * (leaf_children); n + 4 cells.  A cell holds only the arrays the walk reads (row_layout):
 * pmf always, suf (suf2) when it sums above tau (with excesses), pre (pre2) below -- 3
 * values for one side with excesses (the certified forward and reverse delta, forward eta),
 * 2 for probabilities only (reverse eta), 5 for both sides: 60 bytes a cell instead of 100
 * for the one-sided queries.  The offset of an array the walk does not read is -1 (never
 * read nor written). */
#define PMF(r, i)  ((r)->pmf0 + (r)->st * (i))
#define SUF(r, i)  ((r)->suf0 + (r)->st * (i))
#define SUF2(r, i) ((r)->suf20 + (r)->st * (i))
#define PRE(r, i)  ((r)->pre0 + (r)->st * (i))
#define PRE2(r, i) ((r)->pre20 + (r)->st * (i))
/* cell (i + 3) offset 0 for pmf[i], (i + 2) osuf for suf[i], (i + 1) osuf2, (i + 3) opre,
   (i + 4) opre2 (an array the walk does not read: offset -1, never used) */
static inline void row_bases(row_t *r) {
    r->pmf0 = r->cells + 3 * r->st;
    r->suf0 = r->cells + 2 * r->st + r->osuf;
    r->suf20 = r->cells + 1 * r->st + r->osuf2;
    r->pre0 = r->cells + 3 * r->st + r->opre;
    r->pre20 = r->cells + 4 * r->st + r->opre2;
}

typedef struct {
    uf theta_lo, omt_lo, rho_lo, rho_hi, irho_lo, irho_hi, iomt_lo, half;
    double theta;
    double lS, l1S;     /* log S_l, log(1 - S_l): S_l = pi_0 + .. + pi_l (the mass hint of get_row) */
    double lpi;         /* sum_{j > l} log(pi_j / (1 - S_l)) */
    row_t **rows;       /* indexed by m */
    /* anchors, kept when the row cache is emptied: pmf at the mode of row m (rounded
       down) and its count; has[m] = 0 when unknown */
    i64 *amode, *acnt; uf *apm; char *has;
    /* rho / (k + 1) and (1 / rho) / k, rounded down and up, k = 0..n (index k), on first use:
       a row's ratio rho (m - k) / (k + 1) is then one product with an integer */
    uf *rk_lo, *rk_hi, *ik_lo, *ik_hi; char *rk_ok, *ik_ok;
} level_t;

typedef struct {
    int L; i64 n;
    level_t *lev;       /* 1..L */
    uf tol, row_tol, tol_small;   /* tol_small = tol 2^-drop_bits */
    uf *buf;            /* scratch pmf, size n + 1 */
    uf *rlo_, *rhi_;    /* 1/k rounded down / up, k = 1..n + 1 (count 1), computed on first use */
    char *rok;
    struct leaf_s *leaves;  /* scratch for leaf_children, size n + 1 */
    i64 cells, max_cells;
    char *arena; size_t arena_size, arena_used; int arena_shared;   /* row cells, bump-allocated (row_cells) */
    u64 clock;
    int err;            /* 0 ok, 1 memory, 2 precision (count overflow) */
    int sides;          /* the sums the walk asks of its rows: SIDE_UP (SUF, SUF2), SIDE_LO (PRE, PRE2) */
    int st, osuf, osuf2, opre, opre2;   /* the cell layout of its rows (row_layout) */
} rows_ctx;

/* The cell layout for the sums the walk reads (see PMF .. PRE2): pmf at offset 0, then suf,
 * suf2 (above tau; suf2 with excesses only), then pre, pre2 (below). */
static void row_layout(rows_ctx *c) {
    int second = !(c->sides & SIDE_NOX), k = 1;
    c->osuf = c->osuf2 = c->opre = c->opre2 = -1;
    if (c->sides & SIDE_UP) { c->osuf = k++; if (second) c->osuf2 = k++; }
    if (c->sides & SIDE_LO) { c->opre = k++; if (second) c->opre2 = k++; }
    c->st = k;
}

/* Row cells come from one arena reserved for the walk (mmap, transparent huge pages where
 * the kernel offers them: a few page faults instead of one per 4 KiB), else malloc; the
 * arena is released after the walk, so a row evicted from it is not reused. */
static int in_arena(const rows_ctx *c, const void *q) {
    return c->arena && (const char *)q >= c->arena && (const char *)q < c->arena + c->arena_size;
}
static ufc *row_cells(rows_ctx *c, size_t count) {
    size_t bytes = (count * sizeof(ufc) + 63) & ~(size_t)63;
    if (c->arena && c->arena_used + bytes <= c->arena_size) {
        ufc *q = (ufc *)(c->arena + c->arena_used);
        c->arena_used += bytes;
        return q;
    }
    return (ufc *)malloc(count * sizeof(ufc));
}
/* One arena is kept between walks: its pages stay mapped (resident up to the largest walk
 * so far, at most MAX_CELLS cells), so a second walk, e.g. the certified run after the
 * magnitude run, does not fault and clear them again.  A walk that finds it busy (another
 * thread: the walk runs without the GIL) maps its own and unmaps it after. */
static struct { char *base; size_t size; int busy; } g_arena = {NULL, 0, 0};

/* Ask for transparent huge pages on the arena (where THP is "madvise", the default of many
 * distributions, an anonymous mapping gets them only when asked): the leaves read cells of
 * hundreds of rows spread over tens of MB, ~1 TLB entry a 2 MB page instead of 512; the first
 * walk faults ~20 pages instead of ~10^4.  Advice only: no effect on any value. */
static void arena_hugepages(void *q, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    (void)madvise(q, bytes, MADV_HUGEPAGE);
#else
    (void)q; (void)bytes;
#endif
}

static void arena_open(rows_ctx *c, size_t bytes) {
#ifdef __linux__
    c->arena_shared = 0;
    if (!__atomic_test_and_set(&g_arena.busy, __ATOMIC_ACQUIRE)) {
        if (g_arena.base && g_arena.size < bytes) { munmap(g_arena.base, g_arena.size); g_arena.base = NULL; }
        if (!g_arena.base) {
            void *q = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (q == MAP_FAILED) { __atomic_clear(&g_arena.busy, __ATOMIC_RELEASE); return; }
            arena_hugepages(q, bytes);
            g_arena.base = (char *)q; g_arena.size = bytes;
        }
        c->arena = g_arena.base; c->arena_size = g_arena.size; c->arena_used = 0; c->arena_shared = 1;
        return;
    }
    void *q = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (q == MAP_FAILED) return;
    arena_hugepages(q, bytes);
    c->arena = (char *)q; c->arena_size = bytes; c->arena_used = 0;
#else
    (void)c; (void)bytes;
#endif
}
static void arena_close(rows_ctx *c) {
#ifdef __linux__
    if (c->arena && c->arena_shared) {
        __atomic_clear(&g_arena.busy, __ATOMIC_RELEASE);
    } else if (c->arena) munmap(c->arena, c->arena_size);
#endif
    c->arena = NULL;
}

static void free_row_in(rows_ctx *c, row_t *r) {
    if (!r) return;
    if (!in_arena(c, r->cells)) free(r->cells);
    free(r);
}


static void clear_rows(rows_ctx *c) {
    for (int l = 1; l <= c->L; l++)
        for (i64 m = 0; m <= c->n; m++)
            if (c->lev[l].rows[m]) { free_row_in(c, c->lev[l].rows[m]); c->lev[l].rows[m] = NULL; }
    c->cells = 0;
}

static inline void recip_fill(rows_ctx *c, i64 k) {
    c->rlo_[k] = uf_div_u64(UF1, (u64)k, 0); c->rhi_[k] = uf_div_u64(UF1, (u64)k, 1); c->rok[k] = 1;
}
static inline uf RLO(rows_ctx *c, i64 k) { if (!c->rok[k]) recip_fill(c, k); return c->rlo_[k]; }
static inline uf RHI(rows_ctx *c, i64 k) { if (!c->rok[k]) recip_fill(c, k); return c->rhi_[k]; }

/* rho / (k + 1) (rounded down: 3 roundings from rho; up) and (1 / rho) / j, j >= 1 */
static inline void rk_fill(rows_ctx *c, level_t *lv, i64 k) {
    lv->rk_lo[k] = uf_mul(lv->rho_lo, RLO(c, k + 1), 0); lv->rk_hi[k] = uf_mul(lv->rho_hi, RHI(c, k + 1), 1);
    lv->rk_ok[k] = 1;
}
static inline void ik_fill(rows_ctx *c, level_t *lv, i64 j) {
    lv->ik_lo[j] = uf_mul(lv->irho_lo, RLO(c, j), 0); lv->ik_hi[j] = uf_mul(lv->irho_hi, RHI(c, j), 1);
    lv->ik_ok[j] = 1;
}

/* x^k rounded down; *count: the count of x on entry, of the result on exit */
static uf pow_down(uf x, u64 k, i64 *count) {
    uf r = UF1; i64 cr = 0, cb = *count;
    uf b = x;
    while (k) {
        if (k & 1) { r = uf_mul(r, b, 0); cr = cr + cb + 1; }
        k >>= 1;
        if (k) { b = uf_mul(b, b, 0); cb = 2 * cb + 1; }
    }
    *count = cr;
    return r;
}

/* Whether the window may stop after a cell of (round-down) mass cur, count cc, whose
 * neighbour ratio outward is at most rn: the ratios decrease outward, so the masses
 * beyond are at most p r^j, their sum at most p r / (1 - r) and the second-order sum
 * sum_j j p r^j = p r / (1 - r)^2; both are <= row_tol when p r <= row_tol (1 - r)^2. */
static inline int tail_ok(uf vcut, uf cur, i64 cc, uf rn) {
    if (!uf_lt(rn, UF1)) return 0;
    uf om = uf_sub(UF1, rn, 0);                           /* <= 1 - r */
    uf lhs = uf_mul(uf_mul(cur, uf_factor((u64)cc), 1), rn, 1);
    uf rhs = uf_mul(uf_mul(vcut, om, 0), om, 0);
    return !uf_lt(rhs, lhs);
}

static row_t *make_row(rows_ctx *c, level_t *lv, i64 m, i64 wexp) {
    row_t *row = (row_t *)calloc(1, sizeof(row_t));
    if (!row) { c->err = 1; return NULL; }
    row->m = m;
    /* the cut: row_tol 2^-wexp (exact: an exponent shift), at most 2^-4 */
    uf vcut = c->row_tol;
    if (!uf_zero(vcut)) {
        if (wexp < vcut.e + 132) wexp = vcut.e + 132;
        if (wexp > 0) wexp = 0;
        vcut.e -= wexp;
    } else wexp = 0;
    row->wexp = wexp;
    row->st = c->st; row->osuf = c->osuf; row->osuf2 = c->osuf2; row->opre = c->opre; row->opre2 = c->opre2;
    if (m == 0) {
        row->ka = row->kb = 0; row->n = 1;
        row->cells = row_cells(c, (size_t)row->st * 5);
        if (!row->cells) { free(row); c->err = 1; return NULL; }
        row_bases(row);
        ufc_set(PMF(row, 0), UF1);
        if (row->osuf >= 0) ufc_set(SUF(row, 0), UF1);
        if (row->osuf2 >= 0) ufc_set(SUF2(row, 0), UF1);
        if (row->opre >= 0) ufc_set(PRE(row, 0), UF1);
        if (row->opre2 >= 0) ufc_set(PRE2(row, 0), UF1);
        row->F = UF1; row->tl = row->tr = row->tl2 = row->tr2 = UF0;
        return row;
    }
    i64 mode = (i64)((double)(m + 1) * lv->theta);
    if (mode > m) mode = m;
    if (mode < 0) mode = 0;
    /* pm = C(m, mode) theta^mode (1 - theta)^(m - mode), rounded down, with its count */
    uf pm; i64 cpm;
    /* an anchor: a row of this level at a nearby m' (its pmf at its mode), walked to (m, mode) */
    i64 am = -1;
    if (lv->has[m] && lv->amode[m] == mode) am = m;        /* this row, rebuilt */
    for (i64 d = 1; d <= 32 && am < 0; d++) {
        if (m - d >= 1 && lv->has[m - d] && lv->amode[m - d] <= m) am = m - d;
        else if (m + d <= c->n && lv->has[m + d] && lv->amode[m + d] <= m) am = m + d;
    }
    if (am >= 0) {
        uf v = lv->apm[am]; i64 cv = lv->acnt[am], k = lv->amode[am], mm = am;
        /* b(k; mm + 1) = b(k; mm) (mm + 1) / (mm + 1 - k) (1 - theta) */
        for (; mm < m; mm++) { v = uf_mul(uf_mul(uf_mul_u64(v, (u64)(mm + 1), 0), RLO(c, mm + 1 - k), 0), lv->omt_lo, 0); cv += 5; }
        /* b(k; mm - 1) = b(k; mm) (mm - k) / mm / (1 - theta)   (k <= m <= mm - 1) */
        for (; mm > m; mm--) { v = uf_mul(uf_mul(uf_mul_u64(v, (u64)(mm - k), 0), RLO(c, mm), 0), lv->iomt_lo, 0); cv += 5; }
        for (; k < mode; k++) { v = uf_mul(v, uf_mul(uf_mul_u64(lv->rho_lo, (u64)(m - k), 0), RLO(c, k + 1), 0), 0); cv += 5; }
        for (; k > mode; k--) { v = uf_mul(v, uf_mul(uf_mul_u64(lv->irho_lo, (u64)k, 0), RLO(c, m - k + 1), 0), 0); cv += 5; }
        pm = v; cpm = cv;
    } else {
        i64 k = mode < m - mode ? mode : m - mode;
        uf cb = UF1; i64 ccount = 0;
        for (i64 i = 1; i <= k; i++) {
            cb = uf_mul(uf_mul_u64(cb, (u64)(m - k + i), 0), RLO(c, i), 0);
            ccount += 3;
        }
        i64 c1 = 1, c2 = 1;
        uf p1 = pow_down(lv->theta_lo, (u64)mode, &c1);
        uf p2 = pow_down(lv->omt_lo, (u64)(m - mode), &c2);
        pm = uf_mul(uf_mul(cb, p1, 0), p2, 0);
        cpm = ccount + c1 + c2 + 2;
    }
    row->amode = mode; row->apm = pm; row->acnt = cpm;
    lv->amode[m] = mode; lv->apm[m] = pm; lv->acnt[m] = cpm; lv->has[m] = 1;
    uf *buf = c->buf;
    buf[mode] = pm;
    /* walk right */
    uf cur = pm; i64 cc = cpm; i64 kk = mode; uf tr = UF0; int cut = 0;
    while (kk < m) {
        if (!lv->rk_ok[kk]) rk_fill(c, lv, kk);
        uf r = uf_mul_u64(lv->rk_lo[kk], (u64)(m - kk), 0);         /* rho (m - k) / (k + 1) */
        cur = uf_mul(cur, r, 0); cc += 5;
        kk++;
        buf[kk] = cur;
        if (uf_lt(cur, vcut) && kk < m) {
            if (!lv->rk_ok[kk]) rk_fill(c, lv, kk);
            uf rn = uf_mul_u64(lv->rk_hi[kk], (u64)(m - kk), 1);
            if (tail_ok(vcut, cur, cc, rn)) { cut = 1; break; }
        }
    }
    tr = cut ? vcut : UF0;
    i64 kb = kk, cmax = cc;
    /* walk left */
    cur = pm; cc = cpm; kk = mode; uf tl = UF0; cut = 0;
    while (kk > 0) {
        if (!lv->ik_ok[m - kk + 1]) ik_fill(c, lv, m - kk + 1);
        uf r = uf_mul_u64(lv->ik_lo[m - kk + 1], (u64)kk, 0);       /* k / ((m - k + 1) rho) */
        cur = uf_mul(cur, r, 0); cc += 5;
        kk--;
        buf[kk] = cur;
        if (uf_lt(cur, vcut) && kk > 0) {
            if (!lv->ik_ok[m - kk + 1]) ik_fill(c, lv, m - kk + 1);
            uf rn = uf_mul_u64(lv->ik_hi[m - kk + 1], (u64)kk, 1);
            if (tail_ok(vcut, cur, cc, rn)) { cut = 1; break; }
        }
    }
    tl = cut ? vcut : UF0;
    i64 ka = kk;
    if (cc > cmax) cmax = cc;
    i64 n = kb - ka + 1;
    row->ka = ka; row->kb = kb; row->n = n;
    row->cells = row_cells(c, (size_t)row->st * (size_t)(n + 4));
    if (!row->cells) { free(row); c->err = 1; return NULL; }
    row_bases(row);
    uf a = UF0, a2 = UF0;
    int second = !(c->sides & SIDE_NOX);        /* the second-order sums (excesses) */
    /* the pmf cells are stored by the first of the sum loops (both read buf); the layout in
       locals (the stores through ufc * could alias the row's fields) */
    ufc *const cl = row->cells;
    const i64 st = row->st, osuf = row->osuf, osuf2 = row->osuf2, opre = row->opre, opre2 = row->opre2;
#define CPMF(i)  (cl + st * ((i) + 3))
#define CSUF(i)  (cl + st * ((i) + 2) + osuf)
#define CSUF2(i) (cl + st * ((i) + 1) + osuf2)
#define CPRE(i)  (cl + st * ((i) + 3) + opre)
#define CPRE2(i) (cl + st * ((i) + 4) + opre2)
    /* running pointers (one stride a step) */
    if ((c->sides & SIDE_UP) && second && st == 3) {     /* one side: suf = pmf - 2, suf2 = pmf - 4 */
        ufc *q0 = CPMF(n - 1);
        for (i64 i = n - 1; i >= 0; i--, q0 -= 3) {
            uf v = buf[ka + i];
            a = uf_add_dn(a, v); a2 = uf_add_dn(a2, a);
            ufc_set(q0, v); ufc_set(q0 - 2, a); ufc_set(q0 - 4, a2);
        }
    } else if ((c->sides & SIDE_UP) && second) {       /* the suffix sums (above tau) */
        ufc *q0 = CPMF(n - 1), *q1 = CSUF(n - 1), *q2 = CSUF2(n - 1);
        for (i64 i = n - 1; i >= 0; i--, q0 -= st, q1 -= st, q2 -= st) {
            uf v = buf[ka + i];
            a = uf_add_dn(a, v); a2 = uf_add_dn(a2, a);
            ufc_set(q0, v); ufc_set(q1, a); ufc_set(q2, a2);
        }
    } else if ((c->sides & SIDE_UP) && st == 2) {       /* one side, probabilities: suf = pmf - 1 */
        ufc *q0 = CPMF(n - 1);
        for (i64 i = n - 1; i >= 0; i--, q0 -= 2) {
            uf v = buf[ka + i];
            a = uf_add_dn(a, v); ufc_set(q0, v); ufc_set(q0 - 1, a);
        }
    } else if (c->sides & SIDE_UP) {
        ufc *q0 = CPMF(n - 1), *q1 = CSUF(n - 1);
        for (i64 i = n - 1; i >= 0; i--, q0 -= st, q1 -= st) {
            uf v = buf[ka + i];
            a = uf_add_dn(a, v); ufc_set(q0, v); ufc_set(q1, a);
        }
    }
    a = UF0; a2 = UF0;
    const int pmf_in_lo = !(c->sides & SIDE_UP);
    if ((c->sides & SIDE_LO) && second && st == 3) {     /* one side: pre = pmf + 1, pre2 = pmf + 5 */
        ufc *q0 = CPMF(0);
        for (i64 i = 0; i < n; i++, q0 += 3) {
            uf v = buf[ka + i];
            a = uf_add_dn(a, v); a2 = uf_add_dn(a2, a);
            ufc_set(q0, v); ufc_set(q0 + 1, a); ufc_set(q0 + 5, a2);
        }
    } else if ((c->sides & SIDE_LO) && second) {       /* the prefix sums (below tau) */
        ufc *q0 = CPMF(0), *q1 = CPRE(0), *q2 = CPRE2(0);
        for (i64 i = 0; i < n; i++, q0 += st, q1 += st, q2 += st) {
            uf v = buf[ka + i];
            a = uf_add_dn(a, v); a2 = uf_add_dn(a2, a);
            if (pmf_in_lo) ufc_set(q0, v);
            ufc_set(q1, a); ufc_set(q2, a2);
        }
    } else if ((c->sides & SIDE_LO) && st == 2) {       /* one side, probabilities: pre = pmf + 1 */
        ufc *q0 = CPMF(0);
        for (i64 i = 0; i < n; i++, q0 += 2) {
            uf v = buf[ka + i];
            a = uf_add_dn(a, v); ufc_set(q0, v); ufc_set(q0 + 1, a);
        }
    } else if (c->sides & SIDE_LO) {
        ufc *q0 = CPMF(0), *q1 = CPRE(0);
        for (i64 i = 0; i < n; i++, q0 += st, q1 += st) {
            uf v = buf[ka + i];
            a = uf_add_dn(a, v);
            if (pmf_in_lo) ufc_set(q0, v);
            ufc_set(q1, a);
        }
    }
#undef CPMF
#undef CSUF
#undef CSUF2
#undef CPRE
#undef CPRE2
    u64 K = (u64)(cmax + 2 * n + 2);
    if (K > (1ULL << 60)) { c->err = 2; free_row_in(c, row); return NULL; }
    row->F = uf_factor(K);
    /* beyond the window: P[T > kb] <= vcut and sum_{j > kb} P[T >= j] <= vcut (tail_ok) */
    row->tl = tl; row->tr = tr;
    row->tl2 = tl; row->tr2 = tr;
    return row;
}

typedef struct { u64 used; int l; i64 m; } lru_t;
static int lru_cmp(const void *a, const void *b) {
    u64 x = ((const lru_t *)a)->used, y = ((const lru_t *)b)->used;
    return x < y ? -1 : (x > y);
}

/* free the least recently used rows until the cache holds at most 3/4 of its budget */
static void evict_rows(rows_ctx *c) {
    i64 count = 0;
    for (int l = 1; l <= c->L; l++)
        for (i64 m = 0; m <= c->n; m++) if (c->lev[l].rows[m]) count++;
    lru_t *a = (lru_t *)malloc((size_t)count * sizeof(lru_t));
    if (!a) { clear_rows(c); return; }
    i64 k = 0;
    for (int l = 1; l <= c->L; l++)
        for (i64 m = 0; m <= c->n; m++)
            if (c->lev[l].rows[m]) { a[k].used = c->lev[l].rows[m]->used; a[k].l = l; a[k].m = m; k++; }
    qsort(a, (size_t)count, sizeof(lru_t), lru_cmp);
    for (i64 i = 0; i < count && c->cells > c->max_cells / 4 * 3; i++) {
        row_t *r = c->lev[a[i].l].rows[a[i].m];
        c->cells -= r->n;
        free_row_in(c, r);
        c->lev[a[i].l].rows[a[i].m] = NULL;
    }
    free(a);
}

/* the row (l, m), made on first use; evict: whether rows may be evicted first (only where
 * no other row pointer is held: leaf_children holds its parent's row and its leaves') */
/* the row (l, m) for users of mass <= w (w = 1: any user; see SIDE_MASSCUT), made on first
 * use or rebuilt for a heavier user */
static inline i64 uf_exp_up(uf w) { return uf_zero(w) ? -100000 : w.e + 128; }     /* w < 2^this */
static inline row_t *get_row(rows_ctx *c, int l, i64 m, int evict, i64 wneed) {
    row_t *r = c->lev[l].rows[m];
    i64 need = 0;                        /* the users' mass <= 2^need */
    if (c->sides & SIDE_MASSCUT) need = wneed > 0 ? 0 : wneed;
    if (r && r->wexp >= need) { r->used = ++c->clock; return r; }
    i64 build = need + MASS_SLACK;
    if ((c->sides & SIDE_MASSCUT) && l < c->L) {
        /* a guess of the heaviest user (performance only: a heavier one rebuilds): the node
           (l, m) has mass <= P[T_0 + .. + T_l = m] = Bin(n, S_l)(m) */
        const level_t *lv = &c->lev[l];
        double lg = lgamma((double)c->n + 1) - lgamma((double)m + 1) - lgamma((double)(c->n - m) + 1)
                    + (double)m * lv->lS + (double)(c->n - m) * lv->l1S;
        /* times the largest conditional probability of one path (T_L, .., T_{l+1}) given the
           sum n - m: a multinomial of k = L - l cells, largest pmf ~ (2 pi n')^(-(k-1)/2)
           (prod p_j)^(-1/2) (Gaussian), capped at 1 */
        double np_ = (double)(c->n - m), cond = 0.0;
        if (np_ > 0) {
            cond = -0.5 * (double)(c->L - l - 1) * log(2 * M_PI * np_) - 0.5 * lv->lpi;
            if (cond > 0) cond = 0;
        }
        double h = (lg + cond) / M_LN2 + 4;            /* 4 bits of margin over the guess */
        if (h >= (double)need && h < 1e6) build = (i64)ceil(h);   /* else (a wrong guess, NaN) need + slack */
    }
    if (r) {                             /* built for lighter users: rebuilt (no pointer to it is held) */
        c->cells -= r->n; free_row_in(c, r); c->lev[l].rows[m] = NULL;
    }
    if (evict && c->cells > c->max_cells) evict_rows(c);
    r = make_row(c, &c->lev[l], m, (c->sides & SIDE_MASSCUT) ? build : 0);
    if (!r) return NULL;
    r->used = ++c->clock;
    c->lev[l].rows[m] = r;
    c->cells += r->n;
    return r;
}

static inline uf hi_of(const row_t *r, const ufc *v) { return uf_mul(ufc_get(v), r->F, 1); }

static inline iv sf_ge(const row_t *r, i64 k) {
    iv out;
    if (k <= 0) return iv_pt(UF1);
    if (k > r->m) return iv_pt(UF0);
    if (k > r->kb) { out.lo = UF0; out.hi = r->tr; return out; }
    if (k < r->ka) {
        out.lo = ufc_get(SUF(r, 0));
        out.hi = uf_add(uf_add(hi_of(r, SUF(r, 0)), r->tr, 1), r->tl, 1);
        return out;
    }
    const ufc *v = SUF(r, (k - r->ka));
    out.lo = ufc_get(v); out.hi = uf_add(hi_of(r, v), r->tr, 1);
    return out;
}

static inline iv cdf_le(const row_t *r, i64 k) {
    iv out;
    if (k < 0) return iv_pt(UF0);
    if (k >= r->m) return iv_pt(UF1);
    if (k < r->ka) { out.lo = UF0; out.hi = r->tl; return out; }
    if (k > r->kb) {
        const ufc *v = PRE(r, (r->n - 1));
        out.lo = ufc_get(v);
        out.hi = uf_add(uf_add(hi_of(r, v), r->tl, 1), r->tr, 1);
        return out;
    }
    const ufc *v = PRE(r, (k - r->ka));
    out.lo = ufc_get(v); out.hi = uf_add(hi_of(r, v), r->tl, 1);
    return out;
}

/* sum_{j >= k} P[T >= j] */
static inline iv ssum_ge(const row_t *r, i64 k) {
    iv out;
    if (k > r->m) return iv_pt(UF0);
    if (k > r->kb) { out.lo = UF0; out.hi = r->tr2; return out; }
    if (k >= r->ka) {
        i64 i = k - r->ka;
        const ufc *v = SUF2(r, i);
        out.lo = ufc_get(v);
        out.hi = uf_add(uf_add(hi_of(r, v), r->tr2, 1), uf_mul_u64(r->tr, (u64)(r->n - i), 1), 1);
        return out;
    }
    i64 a1 = (r->ka - 1 < 0 ? r->ka - 1 : 0) - k + 1; if (a1 < 0) a1 = 0;
    i64 a2 = r->ka - 1 - (k > 1 ? k : 1) + 1; if (a2 < 0) a2 = 0;
    iv s2, s1;
    s2.lo = ufc_get(SUF2(r, 0));
    s2.hi = uf_add(uf_add(hi_of(r, SUF2(r, 0)), r->tr2, 1), uf_mul_u64(r->tr, (u64)r->n, 1), 1);
    s1.lo = ufc_get(SUF(r, 0));
    s1.hi = uf_add(uf_add(hi_of(r, SUF(r, 0)), r->tr, 1), r->tl, 1);
    out = iv_add(iv_add(s2, iv_pt(uf_from_u64((u64)a1))), iv_mul_u64(s1, (u64)a2));
    return out;
}

/* sum_{j <= k} P[T <= j] */
static inline iv csum_le(const row_t *r, i64 k) {
    iv out;
    if (k < 0) return iv_pt(UF0);
    if (k < r->ka) { out.lo = UF0; out.hi = r->tl2; return out; }
    if (k <= r->kb) {
        i64 i = k - r->ka;
        const ufc *v = PRE2(r, i);
        out.lo = ufc_get(v);
        out.hi = uf_add(uf_add(hi_of(r, v), r->tl2, 1), uf_mul_u64(r->tl, (u64)(i + 1), 1), 1);
        return out;
    }
    i64 mx = r->kb + 1 > r->m ? r->kb + 1 : r->m;
    i64 a1 = k - mx + 1; if (a1 < 0) a1 = 0;
    i64 a2 = (k < r->m - 1 ? k : r->m - 1) - (r->kb + 1) + 1; if (a2 < 0) a2 = 0;
    const ufc *v2 = PRE2(r, (r->n - 1)), *v1 = PRE(r, (r->n - 1));
    iv s2, s1;
    s2.lo = ufc_get(v2);
    s2.hi = uf_add(uf_add(hi_of(r, v2), r->tl2, 1), uf_mul_u64(r->tl, (u64)r->n, 1), 1);
    s1.lo = ufc_get(v1);
    s1.hi = uf_add(uf_add(hi_of(r, v1), r->tl, 1), r->tr, 1);
    out = iv_add(iv_add(s2, iv_pt(uf_from_u64((u64)a1))), iv_mul_u64(s1, (u64)a2));
    return out;
}

static iv pmf_at(const row_t *r, i64 t) {
    iv out;
    if (t < 0 || t > r->m) return iv_pt(UF0);
    if (t < r->ka) { out.lo = UF0; out.hi = r->tl; return out; }
    if (t > r->kb) { out.lo = UF0; out.hi = r->tr; return out; }
    const ufc *v = PMF(r, (t - r->ka));
    out.lo = ufc_get(v); out.hi = hi_of(r, v);
    return out;
}

/* Lower ends of sf_ge, cdf_le, ssum_ge, csum_le and pmf_at alone (the leaves' sums, see
 * leaf_children): each is the lower end those functions return, computed by the same
 * round-down operations (at most 3), so the exact value v satisfies
 *     v <= lower * F * (1 - 2^-127)^-3 + tail,
 * with the row's tail terms at most row_tol (2 m + 1 + n) <= row_tol (3 m + 2), n <= m + 1
 * the window size: 2 row_tol for sf and cdf, row_tol for the pmf, 0 when the row is not cut. */
static inline uf sf_lo(const row_t *r, i64 k) {
    if (k <= 0) return UF1;
    if (k > r->m || k > r->kb) return UF0;
    return ufc_get(SUF(r, (k < r->ka ? 0 : k - r->ka)));
}
static inline uf cdf_lo(const row_t *r, i64 k) {
    if (k < 0) return UF0;
    if (k >= r->m) return UF1;
    if (k < r->ka) return UF0;
    return ufc_get(PRE(r, (k > r->kb ? r->n - 1 : k - r->ka)));
}
static inline uf ssum_lo(const row_t *r, i64 k) {
    if (k > r->m || k > r->kb) return UF0;
    if (k >= r->ka) return ufc_get(SUF2(r, (k - r->ka)));
    i64 a1 = (r->ka - 1 < 0 ? r->ka - 1 : 0) - k + 1; if (a1 < 0) a1 = 0;
    i64 a2 = r->ka - 1 - (k > 1 ? k : 1) + 1; if (a2 < 0) a2 = 0;
    return uf_add(uf_add(ufc_get(SUF2(r, 0)), uf_from_u64((u64)a1), 0), uf_mul_u64(ufc_get(SUF(r, 0)), (u64)a2, 0), 0);
}
static inline uf csum_lo(const row_t *r, i64 k) {
    if (k < 0 || k < r->ka) return UF0;
    if (k <= r->kb) return ufc_get(PRE2(r, (k - r->ka)));
    i64 mx = r->kb + 1 > r->m ? r->kb + 1 : r->m;
    i64 a1 = k - mx + 1; if (a1 < 0) a1 = 0;
    i64 a2 = (k < r->m - 1 ? k : r->m - 1) - (r->kb + 1) + 1; if (a2 < 0) a2 = 0;
    return uf_add(uf_add(ufc_get(PRE2(r, (r->n - 1))), uf_from_u64((u64)a1), 0),
                  uf_mul_u64(ufc_get(PRE(r, (r->n - 1))), (u64)a2, 0), 0);
}
static inline uf pmf_lo(const row_t *r, i64 t) {
    if (t < 0 || t > r->m || t < r->ka || t > r->kb) return UF0;
    return ufc_get(PMF(r, (t - r->ka)));
}

/* ------------------------------------------------------------------ the walk */
typedef struct { int l; i64 m; big E; uf plo, phi; } node_t;
#define LEAF_AHEAD 3
typedef struct leaf_s { const row_t *row; uf pm; i64 ka; big r; } leaf_t;

typedef struct {
    int L; i64 n; i64 max_nodes; int excess_le_z; int nl; int q_one; int tau_exact;
    int sides;                /* SIDE_UP | SIDE_LO: the sums accumulated (the other side's stay 0) */
    i64 cq21; big ncr21;      /* B_2 = cq21 B_1 + cr21, 0 <= cr21 < B_1 (L >= 2); ncr21 = -cr21 */
    big Wq[65], B[65], B2[65], Pbig, E0;
    double Bd[65], B2d[65];
    iv invQ, mu[65], muW0[65], Wmu[65], slope[65];
    uf e_lo_mag, e_hi_mag; int e_lo_neg, e_hi_neg;     /* e = tau - P/Q in [e_lo, e_hi] */
} params;

typedef struct {
    iv up_P, up_X, eq_P, lo_P, lo_X;
    uf d_P, d_E, d_up, d_lo;
    i64 nodes, leaves;
} acc_t;

/* lower / upper bound of x - e (x >= 0 an interval) clamped at 0 */
static inline iv minus_e(iv x, const params *p) {
    iv r;
    /* lower: x.lo - e_hi */
    r.lo = p->e_hi_neg ? uf_add_dn(x.lo, p->e_hi_mag) : uf_sub(x.lo, p->e_hi_mag, 0);
    /* upper: x.hi - e_lo */
    r.hi = p->e_lo_neg ? uf_add(x.hi, p->e_lo_mag, 1) : uf_sub(x.hi, p->e_lo_mag, 1);
    return r;
}
static inline iv plus_e(iv x, const params *p) {
    iv r;
    r.lo = p->e_lo_neg ? uf_sub(x.lo, p->e_lo_mag, 0) : uf_add_dn(x.lo, p->e_lo_mag);
    r.hi = p->e_hi_neg ? uf_sub(x.hi, p->e_hi_mag, 1) : uf_add(x.hi, p->e_hi_mag, 1);
    return r;
}
/* upper bound of max(x/Q - e, 0) for an exact integer x */
static inline uf over_Q_up(uf v, const params *p) { return p->q_one ? v : uf_mul(v, p->invQ.hi, 1); }
static inline uf up_minus_e(const big *x, const params *p) {
    uf v = over_Q_up(big_pos_up(x, p->nl), p);
    return p->e_lo_neg ? uf_add(v, p->e_lo_mag, 1) : v;
}
/* upper bound of max(-x/Q + e, 0) */
static inline uf up_neg_plus_e(const big *x, const params *p) {
    big t; big_negate(&t, x, p->nl);
    uf v = over_Q_up(big_pos_up(&t, p->nl), p);
    return p->e_hi_neg ? v : uf_add(v, p->e_hi_mag, 1);
}
/* an exact integer x >= 0 divided by Q, as an interval */
static inline iv big_over_Q(const big *x, const params *p) {
    iv r;
    if (big_neg(x, p->nl)) { r.lo = r.hi = UF0; return r; }
    big_abs_iv(x, p->nl, &r.lo, &r.hi);
    if (!p->q_one) { r.lo = uf_mul(r.lo, p->invQ.lo, 0); r.hi = uf_mul(r.hi, p->invQ.hi, 1); }
    return r;
}

static inline int big_eq(const big *a, const big *b, int nl) {
    for (int i = 0; i < nl; i++) if (a->w[i] != b->w[i]) return 0;
    return 1;
}

/* Children T_l = t (tmin <= t <= tmax) of the node (l, m, E), not expanded, of total mass
 * at most S (each below tol).  A child's conditional mean E[Z | t] = Zs + t W_l + (m - t)
 * mu_{l-1} and its largest excess (Zs + t W_l + (m - t) W_{l-1} - tau)+ increase with t,
 * its largest deficit (tau - Zs - t W_l - (m - t) W_0)+ decreases: each is bounded by its
 * value at tmax (tmin) times S. */
/* One child T_l = t of the node (l, m, E), of mass at most cm_hi, not expanded: its
 * exact conditional mean and largest excess and deficit times its mass (d_up only when the
 * walk sums the side above tau, d_lo only below, none of them nor d_E for probabilities
 * only: p->sides; d_E serves both sides' E[Z; side]). */
static void drop_child(const params *p, acc_t *acc, const big *E, i64 t, int l, i64 m, uf cm_hi) {
    const int nl = p->nl;
    big Ec; big_addmul(&Ec, E, (u64)t, &p->Wq[l], nl);     /* child's (Zs Q - P) */
    i64 mc = m - t;
    acc->d_P = uf_add(acc->d_P, cm_hi, 1);
    if (p->sides & SIDE_NOX) return;
    if (p->sides & SIDE_LO) {
        big Y; big_addmul(&Y, &Ec, (u64)mc, &p->Wq[0], nl);
        acc->d_lo = uf_add(acc->d_lo, uf_mul(cm_hi, up_neg_plus_e(&Y, p), 1), 1);
    }
    big ZP; big_add(&ZP, &Ec, &p->Pbig, nl);                /* Zs_c Q */
    uf ez = uf_add(over_Q_up(big_pos_up(&ZP, nl), p), uf_mul_u64(p->mu[l - 1].hi, (u64)mc, 1), 1);
    acc->d_E = uf_add(acc->d_E, uf_mul(cm_hi, ez, 1), 1);
    if (!(p->sides & SIDE_UP)) return;
    big X; big_addmul(&X, &Ec, (u64)mc, &p->Wq[l - 1], nl);
    uf upb = up_minus_e(&X, p);
    if (p->excess_le_z && uf_lt(ez, upb)) upb = ez;
    acc->d_up = uf_add(acc->d_up, uf_mul(cm_hi, upb, 1), 1);
}

/* Children not expanded: those of mass at least tol 2^-drop_bits one by one (drop_child),
 * the lighter ones per group (drop_group); drop_bits is the caller's (ckernel.py).  A
 * group's bound (its mass times the extreme conditional mean and excesses) is within a few
 * per cent of the sum of the children's own: 8 (rather than 20) makes the enclosures of
 * the issue-16 queries wider by ~1e-5 of their width and saves ~4 % of a walk's
 * instructions; 2 (the certified default since 2026-11-26) ~0.3 % wider than 8 and ~2 %
 * fewer instructions. */
typedef struct { uf S; i64 tmin, tmax; } dgroup_t;
static inline void dgroup_add(dgroup_t *g, i64 t, uf cm_hi) {
    if (uf_zero(g->S) && g->tmin > g->tmax) { g->tmin = g->tmax = t; }
    if (t < g->tmin) g->tmin = t;
    if (t > g->tmax) g->tmax = t;
    g->S = uf_add(g->S, cm_hi, 1);
}
static void drop_group(const params *p, acc_t *acc, const big *E, int l, i64 m, const dgroup_t *g) {
    if (g->tmin > g->tmax) return;
    const int nl = p->nl;
    uf S = g->S;
    acc->d_P = uf_add(acc->d_P, S, 1);
    if (p->sides & SIDE_NOX) return;
    if (p->sides & SIDE_LO) {
        big Ec2; big_addmul(&Ec2, E, (u64)g->tmin, &p->Wq[l], nl);    /* at tmin */
        big Y; big_addmul(&Y, &Ec2, (u64)(m - g->tmin), &p->Wq[0], nl);
        acc->d_lo = uf_add(acc->d_lo, uf_mul(S, up_neg_plus_e(&Y, p), 1), 1);
    }
    big Ec; big_addmul(&Ec, E, (u64)g->tmax, &p->Wq[l], nl);     /* child's (Zs Q - P) at tmax */
    i64 mc = m - g->tmax;
    big ZP; big_add(&ZP, &Ec, &p->Pbig, nl);                      /* Zs_c Q */
    uf ez = uf_add(over_Q_up(big_pos_up(&ZP, nl), p), uf_mul_u64(p->mu[l - 1].hi, (u64)mc, 1), 1);
    acc->d_E = uf_add(acc->d_E, uf_mul(S, ez, 1), 1);
    if (!(p->sides & SIDE_UP)) return;
    big X; big_addmul(&X, &Ec, (u64)mc, &p->Wq[l - 1], nl);
    uf upb = up_minus_e(&X, p);
    if (p->excess_le_z && uf_lt(ez, upb)) upb = ez;
    acc->d_up = uf_add(acc->d_up, uf_mul(S, upb, 1), 1);
}
#define DGROUP_INIT {{0, 0, 0}, 1, 0}

/* The children T_2 = t (lo_w <= t <= hi_w, straddling tau) of a node at level 2 are leaves:
 * the same nodes as pushed and popped one by one (counted alike), summed here instead.
 * A leaf of m' = m - t free users (categories 0, 1) has Z(x) = Zs' + m' W_0 + x (W_1 - W_0)
 * for T_1 = x; with AL = (Zs' + m' W_0) Q - P (<= 0, the child is not wholly above) the
 * values x >= ka (first with AL + x B_1 > 0) are above tau, G = AL + ka B_1 in (0, B_1];
 * x = ka - 1 is a tie when G == B_1; below tau: x <= kb = ka - 1 - tie with
 * H = -(AL + kb B_1) = B_1 - G (B_1 on a tie).  So per leaf
 *     up_P = P_c sf(ka),  up_X = P_c (sf(ka) g + (W_1 - W_0) ssum(ka + 1)),  g = G/Q - e,
 *     lo_P = P_c cdf(kb), lo_X = P_c (cdf(kb) h + (W_1 - W_0) csum(kb - 1)),  h = H/Q + e,
 *     eq_P = P_c pmf(ka - 1) on a tie,
 * with P_c = P pmf_2(t) the child's mass.  The sums over t of pmf_2(t) * (...) are taken
 * per unit of the node's mass with round-down operations on lower ends only, as
 *     sum x,  sum x g  and  D sum pmf_2 ssum(ka + 1),   x = pmf_2 sf(ka)   (likewise below)
 * (x once per term for the mass and the excess; D = W_1 - W_0 applied once at the end);
 * the upper ends follow from
 *     exact <= sum * F_2 * F_1 * (1 - 2^-127)^-(13 + nt) + tails
 * (F_2 the node's row factor, F_1 the largest of the leaves' rows, nt the number of terms,
 * one rounding each of a running sum; the 13 bounds the rest of a chain: sum x g: 3 for
 * a lookup, 2 for x and x g, 5 for g when tau is exact (g's upper end within
 * (1 - 2^-127)^-5 of its lower end), 1 for the final sum = 11 (with an exact tau the walk
 * sums x G, G = g Q the exact integer rounded down (1), and multiplies the sum by 1/Q
 * rounded down once at the end (2): 3 + 1 + 1 + 1 + 2 + 1 = 9); D sum pmf_2 ssum: 3 for
 * a lookup, 1 for the product, 1 + 1 for D and its product, 1 for the final sum = 7;
 * for an irrational tau the excess sums are also taken with the upper ends of g and h,
 * which need no count); the tails: the leaves'
 * masses pmf_2(t) sum to at most 1, so the rows' tails add at most 2 row_tol to a mass,
 * row_tol (2 (2 D + 1) + D (3 m + 2)) <= row_tol (D + 1)(3 m + 8) to an excess
 * (D = W_1 - W_0; g, h <= 2 D + 1) and row_tol to eq_P, when a leaf's row is cut; a row
 * cut by mass (SIDE_MASSCUT, wexp < 0) has tails <= row_tol 2^-wexp and is read by a leaf
 * of mass cm_hi < 2^(wexp + 1), so per leaf these tails times P pmf_2(t) are at most twice
 * the bounds above in absolute terms: 2 nt times them are added after the product with P.
 * Returns 0, or the walk's error code. */
static int leaf_children(const params *p, rows_ctx *rc, acc_t *acc, const big *E, const big *A, i64 m,
                         iv P, const row_t *row, i64 lo_w, i64 hi_w) {
    const int nl = p->nl;
    uf Sp_up = UF0, Sx_up = UF0, Sx_up2 = UF0, Sp_lo = UF0, Sx_lo = UF0, Sx_lo2 = UF0, Sp_eq = UF0;
    uf Ss_up = UF0, Ss_lo = UF0;        /* sum pm ssum(ka + 1), sum pm csum(kb - 1): times D at the end */
    u64 K1 = 0; int cut = 0, light = 0; i64 nt = 0;
    const uf D_lo = p->slope[1].lo;
    const int want_x = !(p->sides & SIDE_NOX);
    /* pass 1: which children are expanded, their rows and thresholds ka; the cells the
       sums need are prefetched (the rows of many sizes do not stay in cache) */
    leaf_t *lv = rc->leaves;
    i64 nlv = 0;
    dgroup_t dl = DGROUP_INIT, dr = DGROUP_INIT;     /* dropped before / after the first expanded */
    /* -(A + t B_2) = q B_1 + r, 0 <= r < B_1 (A + t B_2 <= 0: the child is not wholly above),
       kept from t to t + 1 with B_2 = cq B_1 + cr; then ka = q + 1 and G = B_1 - r */
    i64 q; big r;
    {
        big AL; big_addmul(&AL, A, (u64)lo_w, &p->B[2], nl);
        q = first_pos(&AL, &p->B[1], p->Bd[1], m - lo_w, nl) - 1;
        big_addmul(&r, &AL, (u64)q, &p->B[1], nl);                /* AL + q B_1 = -r */
        big_negate(&r, &r, nl);
    }
    const uf PF = uf_mul(P.hi, row->F, 1);          /* a child's mass <= pmf_lo PF */
    const int pf_nz = !uf_zero(PF) && !uf_zero(rc->tol);
    const i64 tol_e = rc->tol.e + 128;
    for (i64 t = lo_w; t <= hi_w; t++) {
        if (t > lo_w) {                                             /* r -= cr, q -= cq, borrow */
            big_add(&r, &r, &p->ncr21, nl);
            q -= p->cq21;
            if (big_neg(&r, nl)) { big_add(&r, &r, &p->B[1], nl); q--; }
        }
        uf pm_lo = ufc_get(PMF(row, (t - row->ka)));
        i64 mc = m - t, wneed;
        /* kept when pm_lo PF >= 2^(pm_lo.e + PF.e + 254) >= 2^(tol.e + 128) > tol (no product
           needed: the same decision as cm_hi >= tol); else cm_hi as before */
        if (pf_nz && !uf_zero(pm_lo) && pm_lo.e + PF.e + 254 >= tol_e) wneed = pm_lo.e + PF.e + 256;
        else {
        uf cm_hi = uf_mul(pm_lo, PF, 1);
        wneed = uf_exp_up(cm_hi);
        if (uf_lt(cm_hi, rc->tol)) {
            if (uf_lt(cm_hi, rc->tol_small)) dgroup_add(nt ? &dr : &dl, t, cm_hi);
            else drop_child(p, acc, E, t, 2, m, cm_hi);
            continue;
        }
        }
        acc->nodes++;
        if (p->max_nodes > 0 && acc->nodes > p->max_nodes) return 3;
        nt++;
        if (mc == 0) { Sp_eq = uf_add_dn(Sp_eq, pm_lo); continue; }    /* a point: Z == tau */
        acc->leaves++;
        row_t *r1 = get_row(rc, 1, mc, 0, wneed);
        if (!r1) return rc->err ? rc->err : 1;
        leaf_t *f = &lv[nlv++];
        f->row = r1; f->pm = pm_lo;
        f->ka = q + 1;
        f->r = r;
    }
    drop_group(p, acc, E, 2, m, &dl);
    drop_group(p, acc, E, 2, m, &dr);
    /* pass 2: the sums */
    for (i64 j = 0; j < nlv; j++) {
        if (j + LEAF_AHEAD < nlv) {            /* the cells a leaf ahead needs, into cache */
            const leaf_t *f2 = &lv[j + LEAF_AHEAD];
            i64 i = f2->ka - f2->row->ka;
            if (i >= -2 && i < f2->row->n + 2) {
                const int st = f2->row->st;
                const char *c = (const char *)(f2->row->cells + st * (i + 2));
                __builtin_prefetch(c); __builtin_prefetch(c + (int)sizeof(ufc) * st - 1);
                if (st > 3) __builtin_prefetch(c + 64);
            }
        }
        const leaf_t *f = &lv[j];
        const row_t *r1 = f->row;
        uf pm_lo = f->pm;
        i64 mc = r1->m, ka = f->ka;
        if (r1->F.lo > K1) K1 = r1->F.lo;
        cut |= !uf_zero(r1->tl) || !uf_zero(r1->tr);
        light |= r1->wexp < 0;
        int tie = big_iszero(&f->r, nl);                     /* G == B_1 */
        i64 kb = ka - 1 - tie;
        if (ka <= mc && (p->sides & SIDE_UP) && !want_x) Sp_up = uf_add_dn(Sp_up, uf_mul(pm_lo, sf_lo(r1, ka), 0));
        else if (ka <= mc && (p->sides & SIDE_UP) && p->tau_exact) {
            /* sum x G (G an integer, rounded down), times 1/Q once at the end */
            big G; big_sub(&G, &p->B[1], &f->r, nl);                               /* B_1 - r */
            uf x = uf_mul(pm_lo, sf_lo(r1, ka), 0);
            Sp_up = uf_add_dn(Sp_up, x);
            Sx_up = uf_add_dn(Sx_up, uf_mul(x, big_floor_uf(&G, nl), 0));
            Ss_up = uf_add_dn(Ss_up, uf_mul(pm_lo, ssum_lo(r1, ka + 1), 0));
        }
        else if (ka <= mc && (p->sides & SIDE_UP)) {
            big G; big_negate(&G, &f->r, nl); big_add(&G, &G, &p->B[1], nl);     /* B_1 - r */
            iv g = big_over_Q(&G, p);
            if (!p->tau_exact) g = minus_e(g, p);                  /* e = 0 for an exact tau */
            uf x = uf_mul(pm_lo, sf_lo(r1, ka), 0);
            Sp_up = uf_add_dn(Sp_up, x);
            Sx_up = uf_add_dn(Sx_up, uf_mul(x, g.lo, 0));
            if (!p->tau_exact) Sx_up2 = uf_add_dn(Sx_up2, uf_mul(x, g.hi, 0));
            Ss_up = uf_add_dn(Ss_up, uf_mul(pm_lo, ssum_lo(r1, ka + 1), 0));
        }
        if (kb >= 0 && (p->sides & SIDE_LO) && !want_x) Sp_lo = uf_add_dn(Sp_lo, uf_mul(pm_lo, cdf_lo(r1, kb), 0));
        else if (kb >= 0 && (p->sides & SIDE_LO) && p->tau_exact) {
            uf x = uf_mul(pm_lo, cdf_lo(r1, kb), 0);
            Sp_lo = uf_add_dn(Sp_lo, x);
            Sx_lo = uf_add_dn(Sx_lo, uf_mul(x, big_floor_uf(tie ? &p->B[1] : &f->r, nl), 0));   /* H */
            Ss_lo = uf_add_dn(Ss_lo, uf_mul(pm_lo, csum_lo(r1, kb - 1), 0));
        }
        else if (kb >= 0 && (p->sides & SIDE_LO)) {
            iv h = big_over_Q(tie ? &p->B[1] : &f->r, p);                /* H = r, B_1 on a tie */
            if (!p->tau_exact) h = plus_e(h, p);
            uf x = uf_mul(pm_lo, cdf_lo(r1, kb), 0);
            Sp_lo = uf_add_dn(Sp_lo, x);
            Sx_lo = uf_add_dn(Sx_lo, uf_mul(x, h.lo, 0));
            if (!p->tau_exact) Sx_lo2 = uf_add_dn(Sx_lo2, uf_mul(x, h.hi, 0));
            Ss_lo = uf_add_dn(Ss_lo, uf_mul(pm_lo, csum_lo(r1, kb - 1), 0));
        }
        if (tie) Sp_eq = uf_add_dn(Sp_eq, uf_mul(pm_lo, pmf_lo(r1, ka - 1), 0));
    }
    if (nt == 0) return 0;
    uf F1 = {1ULL << 63, K1, -127};
    uf fac = uf_mul(uf_mul(row->F, F1, 1), uf_factor((u64)(13 + nt)), 1);
    uf rt = rc->row_tol;
    uf tP = cut ? uf_add(rt, rt, 1) : UF0;
    uf tX = cut ? uf_mul_u64(uf_mul(rt, uf_add(p->slope[1].hi, UF1, 1), 1), (u64)(3 * m + 8), 1) : UF0;
    uf tE = cut ? rt : UF0;
    /* rows cut by mass (SIDE_MASSCUT): a leaf's row has tails <= vcut = row_tol 2^-wexp and the
       leaf's mass P pmf_2(t) <= cm_hi < 2 * 2^wexp, so its tails add at most 2 row_tol
       (absolute) per unit of the bounds above: 2 nt times them, added after the product
       with P (instead of P times them) */
    uf aP = UF0, aX = UF0, aE = UF0;
    if (cut && light) {
        aP = uf_mul_u64(tP, (u64)(2 * nt), 1); aX = uf_mul_u64(tX, (u64)(2 * nt), 1); aE = uf_mul_u64(tE, (u64)(2 * nt), 1);
        tP = tX = tE = UF0;
    }
    if (p->tau_exact) {             /* sum x G / Q: 1/Q rounded down, the product too */
        if (!p->q_one) { Sx_up = uf_mul(Sx_up, p->invQ.lo, 0); Sx_lo = uf_mul(Sx_lo, p->invQ.lo, 0); }
        Sx_up2 = Sx_up; Sx_lo2 = Sx_lo;
    }
    /* the excess sums: sum pm s0 g + D sum pm ssum (2 more roundings on each chain) */
    uf Dup = uf_mul(D_lo, Ss_up, 0), Dlo = uf_mul(D_lo, Ss_lo, 0);
    Sx_up = uf_add_dn(Sx_up, Dup); Sx_up2 = uf_add_dn(Sx_up2, Dup);
    Sx_lo = uf_add_dn(Sx_lo, Dlo); Sx_lo2 = uf_add_dn(Sx_lo2, Dlo);
    iv a;
    a.lo = Sp_up; a.hi = uf_add(uf_mul(Sp_up, fac, 1), tP, 1); acc->up_P = iv_add(acc->up_P, iv_mul(P, a));
    a.lo = Sx_up; a.hi = uf_add(uf_mul(Sx_up2, fac, 1), tX, 1); acc->up_X = iv_add(acc->up_X, iv_mul(P, a));
    a.lo = Sp_lo; a.hi = uf_add(uf_mul(Sp_lo, fac, 1), tP, 1); acc->lo_P = iv_add(acc->lo_P, iv_mul(P, a));
    a.lo = Sx_lo; a.hi = uf_add(uf_mul(Sx_lo2, fac, 1), tX, 1); acc->lo_X = iv_add(acc->lo_X, iv_mul(P, a));
    a.lo = Sp_eq; a.hi = uf_add(uf_mul(Sp_eq, fac, 1), tE, 1); acc->eq_P = iv_add(acc->eq_P, iv_mul(P, a));
    if (!uf_zero(aP)) {
        acc->up_P.hi = uf_add(acc->up_P.hi, aP, 1); acc->up_X.hi = uf_add(acc->up_X.hi, aX, 1);
        acc->lo_P.hi = uf_add(acc->lo_P.hi, aP, 1); acc->lo_X.hi = uf_add(acc->lo_X.hi, aX, 1);
        acc->eq_P.hi = uf_add(acc->eq_P.hi, aE, 1);
    }
    return 0;
}

static int walk(const params *p, rows_ctx *rc, acc_t *acc) {
    size_t cap = 1024, sp = 0;
    node_t *stack = (node_t *)malloc(cap * sizeof(node_t));
    if (!stack) return 1;
    stack[sp].l = p->L; stack[sp].m = p->n; stack[sp].E = p->E0;
    stack[sp].plo = UF1; stack[sp].phi = UF1; sp++;
    const int nl = p->nl;
    while (sp) {
        node_t nd = stack[--sp];
        int l = nd.l; i64 m = nd.m;
        iv P = {nd.plo, nd.phi};
        acc->nodes++;
        if (p->max_nodes > 0 && acc->nodes > p->max_nodes) { free(stack); return 3; }
        big A, Amax;
        big_addmul(&A, &nd.E, (u64)m, &p->Wq[0], nl);           /* (Zs + m W_0) Q - P */
        if (big_sign(&A, nl) > 0) {                             /* wholly above */
            if (!(p->sides & SIDE_UP)) continue;
            acc->up_P = iv_add(acc->up_P, P);
            if (p->sides & SIDE_NOX) continue;
            iv D = minus_e(iv_add(big_over_Q(&A, p), iv_mul_u64(p->muW0[l], (u64)m)), p);
            acc->up_X = iv_add(acc->up_X, iv_mul(P, D));
            continue;
        }
        big_addmul(&Amax, &nd.E, (u64)m, &p->Wq[l], nl);        /* (Zs + m W_l) Q - P */
        if (big_sign(&Amax, nl) < 0) {                          /* wholly below */
            if (!(p->sides & SIDE_LO)) continue;
            acc->lo_P = iv_add(acc->lo_P, P);
            if (p->sides & SIDE_NOX) continue;
            big nA; big_negate(&nA, &Amax, nl);
            iv D = plus_e(iv_add(big_over_Q(&nA, p), iv_mul_u64(p->Wmu[l], (u64)m)), p);
            acc->lo_X = iv_add(acc->lo_X, iv_mul(P, D));
            continue;
        }
        if (m == 0) { acc->eq_P = iv_add(acc->eq_P, P); continue; }
        row_t *row = get_row(rc, l, m, 1, uf_exp_up(P.hi));
        if (!row) { free(stack); return rc->err ? rc->err : 1; }
        i64 ka = first_pos(&A, &p->B[l], p->Bd[l], m, nl);               /* children wholly above: t >= ka */
        big A2; big_addmul(&A2, &nd.E, (u64)m, &p->Wq[l - 1], nl);
        i64 kb = last_neg(&A2, &p->B2[l], p->B2d[l], m, nl);              /* children wholly below: t <= kb */
        if (ka <= m && (p->sides & (SIDE_UP | SIDE_NOX)) == (SIDE_UP | SIDE_NOX))
            acc->up_P = iv_add(acc->up_P, iv_mul(P, sf_ge(row, ka)));
        else if (ka <= m && (p->sides & SIDE_UP)) {
            iv s0 = sf_ge(row, ka), s1 = ssum_ge(row, ka + 1);
            big G; big_addmul(&G, &A, (u64)ka, &p->B[l], nl);
            iv g = minus_e(iv_add(big_over_Q(&G, p), iv_mul_u64(p->muW0[l - 1], (u64)(m - ka))), p);
            acc->up_P = iv_add(acc->up_P, iv_mul(P, s0));
            acc->up_X = iv_add(acc->up_X, iv_mul(P, iv_add(iv_mul(s0, g), iv_mul(p->slope[l], s1))));
        }
        if (kb >= 0 && (p->sides & (SIDE_LO | SIDE_NOX)) == (SIDE_LO | SIDE_NOX))
            acc->lo_P = iv_add(acc->lo_P, iv_mul(P, cdf_le(row, kb)));
        else if (kb >= 0 && (p->sides & SIDE_LO)) {
            iv s0 = cdf_le(row, kb), s1 = csum_le(row, kb - 1);
            big H, nH; big_addmul(&H, &A2, (u64)kb, &p->B2[l], nl); big_negate(&nH, &H, nl);
            iv h = plus_e(iv_add(big_over_Q(&nH, p), iv_mul_u64(p->Wmu[l - 1], (u64)(m - kb))), p);
            acc->lo_P = iv_add(acc->lo_P, iv_mul(P, s0));
            acc->lo_X = iv_add(acc->lo_X, iv_mul(P, iv_add(iv_mul(s0, h), iv_mul(p->slope[l], s1))));
        }
        i64 t_first = kb + 1, t_last = ka - 1;
        if (l == 1) {                                      /* leaf: a straddling child is Z == tau */
            acc->leaves++;
            for (i64 t = t_first; t <= t_last; t++) acc->eq_P = iv_add(acc->eq_P, iv_mul(P, pmf_at(row, t)));
            continue;
        }
        if (t_first > t_last) continue;
        i64 lo_w = t_first > row->ka ? t_first : row->ka;
        i64 hi_w = t_last < row->kb ? t_last : row->kb;
        uf outside = UF0; int has_out = 0;
        if (lo_w > hi_w) { outside = uf_add(row->tl, row->tr, 1); has_out = 1; }
        else {
            if (t_first < row->ka) { outside = row->tl; has_out = 1; }
            if (t_last > row->kb) { outside = uf_add(outside, row->tr, 1); has_out = 1; }
        }
        if (has_out && !uf_zero(outside)) {
            uf dm = uf_mul(P.hi, outside, 1);
            big ZP; big_add(&ZP, &Amax, &p->Pbig, nl);      /* (Zs + m W_l) Q */
            uf zhi = over_Q_up(big_pos_up(&ZP, nl), p);
            acc->d_P = uf_add(acc->d_P, dm, 1);
            if (!(p->sides & SIDE_NOX)) acc->d_E = uf_add(acc->d_E, uf_mul(dm, zhi, 1), 1);
            if ((p->sides & (SIDE_UP | SIDE_NOX)) == SIDE_UP)
                acc->d_up = uf_add(acc->d_up, uf_mul(dm, up_minus_e(&Amax, p), 1), 1);
            if ((p->sides & (SIDE_LO | SIDE_NOX)) == SIDE_LO)
                acc->d_lo = uf_add(acc->d_lo, uf_mul(dm, up_neg_plus_e(&A, p), 1), 1);
        }
        if (lo_w > hi_w) continue;
        if (sp + (size_t)(hi_w - lo_w + 1) > cap) {
            while (sp + (size_t)(hi_w - lo_w + 1) > cap) cap *= 2;
            node_t *ns = (node_t *)realloc(stack, cap * sizeof(node_t));
            if (!ns) { free(stack); return 1; }
            stack = ns;
        }
        if (l == 2) {
            int rc2 = leaf_children(p, rc, acc, &nd.E, &A, m, P, row, lo_w, hi_w);
            if (rc2) { free(stack); return rc2; }
            continue;
        }
        dgroup_t dl = DGROUP_INIT, dr = DGROUP_INIT;   /* dropped before / after the first pushed */
        size_t sp0 = sp;
        const uf PF = uf_mul(P.hi, row->F, 1);       /* a child's mass <= pmf_lo PF */
        for (i64 t = lo_w; t <= hi_w; t++) {
            const ufc *v = PMF(row, (t - row->ka));
            uf pm_lo = ufc_get(v);
            uf cm_hi = uf_mul(pm_lo, PF, 1);
            if (uf_lt(cm_hi, rc->tol)) {
                if (uf_lt(cm_hi, rc->tol_small)) dgroup_add(sp > sp0 ? &dr : &dl, t, cm_hi);
                else drop_child(p, acc, &nd.E, t, l, m, cm_hi);
                continue;
            }
            node_t *c = &stack[sp++];
            c->l = l - 1; c->m = m - t; big_addmul(&c->E, &nd.E, (u64)t, &p->Wq[l], nl);
            c->plo = uf_mul(P.lo, pm_lo, 0); c->phi = cm_hi;
        }
        drop_group(p, acc, &nd.E, l, m, &dl);
        drop_group(p, acc, &nd.E, l, m, &dr);
    }
    free(stack);
    return 0;
}

/* ------------------------------------------------------------------ Python glue */
static int get_u64(PyObject *o, u64 *out) {
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *out = (u64)v; return 0;
}

/* uf from a tuple (hi, lo, e) */
static int parse_uf(PyObject *t, uf *out) {
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 3) { PyErr_SetString(PyExc_TypeError, "uf: (hi, lo, e)"); return -1; }
    if (get_u64(PyTuple_GET_ITEM(t, 0), &out->hi) || get_u64(PyTuple_GET_ITEM(t, 1), &out->lo)) return -1;
    long long e = PyLong_AsLongLong(PyTuple_GET_ITEM(t, 2));
    if (e == -1 && PyErr_Occurred()) return -1;
    out->e = e; return 0;
}
static int parse_iv(PyObject *t, iv *out) {
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 2) { PyErr_SetString(PyExc_TypeError, "iv: (lo, hi)"); return -1; }
    return parse_uf(PyTuple_GET_ITEM(t, 0), &out->lo) || parse_uf(PyTuple_GET_ITEM(t, 1), &out->hi) ? -1 : 0;
}
/* big from a tuple of NL limbs (two's complement, least significant first) */
static int parse_big(PyObject *t, big *out) {
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != NL) { PyErr_SetString(PyExc_TypeError, "big: NL limbs"); return -1; }
    for (int i = 0; i < NL; i++) if (get_u64(PyTuple_GET_ITEM(t, i), &out->w[i])) return -1;
    return 0;
}
static PyObject *uf_tuple(uf a) {
    return Py_BuildValue("(KKL)", (unsigned long long)a.hi, (unsigned long long)a.lo, (long long)a.e);
}
static PyObject *iv_tuple(iv a) {
    PyObject *x = uf_tuple(a.lo), *y = uf_tuple(a.hi);
    PyObject *r = (x && y) ? PyTuple_Pack(2, x, y) : NULL;
    Py_XDECREF(x); Py_XDECREF(y);
    return r;
}

#define GETSEQ(name, i) PySequence_Fast_GET_ITEM(name, i)

static PyObject *py_tail_sums(PyObject *self, PyObject *args) {
    int L, nl; long long n, max_nodes, max_cells; int excess_le_z, sides, drop_bits;
    PyObject *o_Wq, *o_B, *o_B2, *o_P, *o_E0, *o_invQ, *o_mu, *o_muW0, *o_Wmu, *o_slope, *o_e,
             *o_tol, *o_rtol, *o_rowc, *o_theta;
    if (!PyArg_ParseTuple(args, "iiLLLiiiOOOOOOOOOOOOOOO", &L, &nl, &n, &max_nodes, &max_cells, &excess_le_z, &sides, &drop_bits,
                          &o_Wq, &o_B, &o_B2, &o_P, &o_E0, &o_invQ, &o_mu, &o_muW0, &o_Wmu, &o_slope,
                          &o_e, &o_tol, &o_rtol, &o_rowc, &o_theta))
        return NULL;
    if (L < 1 || L > 64 || n < 0) { PyErr_SetString(PyExc_ValueError, "_ckernel: 1 <= L <= 64, n >= 0"); return NULL; }
    params *p = (params *)calloc(1, sizeof(params));
    rows_ctx rc; memset(&rc, 0, sizeof rc);
    acc_t acc; memset(&acc, 0, sizeof acc);
    PyObject *result = NULL;
    PyObject *s[9] = {NULL};
    if (!p) return PyErr_NoMemory();
    if ((sides & 3) == 0 || sides > 15 || drop_bits < 0 || drop_bits > 60) { free(p); PyErr_SetString(PyExc_ValueError, "_ckernel: sides in 1..15, not 4, 8, 12; 0 <= drop_bits <= 60"); return NULL; }
    p->L = L; p->n = n; p->max_nodes = max_nodes; p->excess_le_z = excess_le_z; p->sides = sides;
    PyObject *seqs_src[9] = {o_Wq, o_B, o_B2, o_mu, o_muW0, o_Wmu, o_slope, o_rowc, o_theta};
    for (int i = 0; i < 9; i++) {
        s[i] = PySequence_Fast(seqs_src[i], "_ckernel: a sequence");
        if (!s[i]) goto done;
        if (PySequence_Fast_GET_SIZE(s[i]) != L + 1) { PyErr_SetString(PyExc_ValueError, "_ckernel: L + 1 entries"); goto done; }
    }
    for (int l = 0; l <= L; l++) {
        if (parse_big(GETSEQ(s[0], l), &p->Wq[l]) || parse_big(GETSEQ(s[1], l), &p->B[l]) ||
            parse_big(GETSEQ(s[2], l), &p->B2[l]) || parse_iv(GETSEQ(s[3], l), &p->mu[l]) ||
            parse_iv(GETSEQ(s[4], l), &p->muW0[l]) || parse_iv(GETSEQ(s[5], l), &p->Wmu[l]) ||
            parse_iv(GETSEQ(s[6], l), &p->slope[l]))
            goto done;
    }
    if (parse_big(o_P, &p->Pbig) || parse_big(o_E0, &p->E0) || parse_iv(o_invQ, &p->invQ)) goto done;
    p->nl = nl;
    if (nl < 2 || nl > NL) { PyErr_SetString(PyExc_ValueError, "_ckernel: 2 <= nl <= NL"); goto done; }
    p->tau_exact = 0;   /* set below from e */
    p->q_one = p->invQ.lo.hi == (1ULL << 63) && p->invQ.lo.lo == 0 && p->invQ.lo.e == -127 &&
               p->invQ.hi.hi == (1ULL << 63) && p->invQ.hi.lo == 0 && p->invQ.hi.e == -127;
    for (int l = 0; l <= L; l++) { p->Bd[l] = big_to_double(&p->B[l], nl); p->B2d[l] = big_to_double(&p->B2[l], nl); }
    if (L >= 2) {           /* B_2 = cq B_1 + cr: cq = first t with B_2 - t B_1 < 0, minus 1 */
        big nB2; big_negate(&nB2, &p->B[2], nl);
        i64 cq = first_pos(&nB2, &p->B[1], p->Bd[1], (i64)1 << 62, nl) - 1;   /* -B_2 + t B_1 > 0 */
        big cr; big_addmul(&cr, &nB2, (u64)cq, &p->B[1], nl);   /* -B_2 + cq B_1 = -cr <= 0 */
        p->cq21 = cq; p->ncr21 = cr;                             /* -cr */
    }
    {
        int a, b; PyObject *m1, *m2;
        if (!PyArg_ParseTuple(o_e, "iOiO", &a, &m1, &b, &m2)) goto done;
        p->e_lo_neg = a; p->e_hi_neg = b;
        if (parse_uf(m1, &p->e_lo_mag) || parse_uf(m2, &p->e_hi_mag)) goto done;
        p->tau_exact = uf_zero(p->e_lo_mag) && uf_zero(p->e_hi_mag);
    }
    rc.L = L; rc.n = n; rc.max_cells = max_cells; rc.sides = sides;
    row_layout(&rc);
    if (parse_uf(o_tol, &rc.tol) || parse_uf(o_rtol, &rc.row_tol)) goto done;
    rc.tol_small = rc.tol; if (!uf_zero(rc.tol)) rc.tol_small.e -= drop_bits;
    rc.lev = (level_t *)calloc((size_t)L + 1, sizeof(level_t));
    rc.buf = (uf *)malloc(((size_t)n + 1) * sizeof(uf));
    rc.leaves = (leaf_t *)malloc(((size_t)n + 1) * sizeof(leaf_t));
    rc.rlo_ = (uf *)malloc(((size_t)n + 2) * sizeof(uf));
    rc.rhi_ = (uf *)malloc(((size_t)n + 2) * sizeof(uf));
    rc.rok = (char *)calloc((size_t)n + 2, 1);
    arena_open(&rc, ((size_t)max_cells + (size_t)n + 8) * 5 * sizeof(ufc) + ((size_t)L + 1) * ((size_t)n + 1) * 128);
    if (!rc.lev || !rc.buf || !rc.leaves || !rc.rlo_ || !rc.rhi_ || !rc.rok) { PyErr_NoMemory(); goto done; }
    for (int l = 1; l <= L; l++) {
        level_t *lv = &rc.lev[l];
        PyObject *t = GETSEQ(s[7], l);
        if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 7) { PyErr_SetString(PyExc_TypeError, "_ckernel: row constants"); goto done; }
        if (parse_uf(PyTuple_GET_ITEM(t, 0), &lv->theta_lo) || parse_uf(PyTuple_GET_ITEM(t, 1), &lv->omt_lo) ||
            parse_uf(PyTuple_GET_ITEM(t, 2), &lv->rho_lo) || parse_uf(PyTuple_GET_ITEM(t, 3), &lv->rho_hi) ||
            parse_uf(PyTuple_GET_ITEM(t, 4), &lv->irho_lo) || parse_uf(PyTuple_GET_ITEM(t, 5), &lv->irho_hi) ||
            parse_uf(PyTuple_GET_ITEM(t, 6), &lv->iomt_lo))
            goto done;
        lv->theta = PyFloat_AsDouble(GETSEQ(s[8], l));
        if (PyErr_Occurred()) goto done;
        lv->half.hi = 1ULL << 63; lv->half.lo = 0; lv->half.e = -128;
        lv->rows = (row_t **)calloc((size_t)n + 1, sizeof(row_t *));
        lv->amode = (i64 *)malloc(((size_t)n + 1) * sizeof(i64));
        lv->acnt = (i64 *)malloc(((size_t)n + 1) * sizeof(i64));
        lv->apm = (uf *)malloc(((size_t)n + 1) * sizeof(uf));
        lv->has = (char *)calloc((size_t)n + 1, 1);
        lv->rk_lo = (uf *)malloc(((size_t)n + 2) * sizeof(uf)); lv->rk_hi = (uf *)malloc(((size_t)n + 2) * sizeof(uf));
        lv->ik_lo = (uf *)malloc(((size_t)n + 2) * sizeof(uf)); lv->ik_hi = (uf *)malloc(((size_t)n + 2) * sizeof(uf));
        lv->rk_ok = (char *)calloc((size_t)n + 2, 1); lv->ik_ok = (char *)calloc((size_t)n + 2, 1);
        if (!lv->rk_lo || !lv->rk_hi || !lv->ik_lo || !lv->ik_hi || !lv->rk_ok || !lv->ik_ok) { PyErr_NoMemory(); goto done; }
        if (!lv->rows || !lv->amode || !lv->acnt || !lv->apm || !lv->has) { PyErr_NoMemory(); goto done; }
    }
    {   /* S_L = 1, S_{l-1} = S_l (1 - theta_l) */
        double S = 1.0, pis[66];
        for (int l = L; l >= 1; l--) {
            rc.lev[l].lS = log(S); rc.lev[l].l1S = S < 1.0 ? log1p(-S) : -1e300;
            pis[l] = rc.lev[l].theta * S;
            double a = 0.0;
            for (int j = l + 1; j <= L; j++) a += log(pis[j] / (1.0 - S));
            rc.lev[l].lpi = a;
            S *= 1.0 - rc.lev[l].theta;
        }
    }
    int rcode;
    Py_BEGIN_ALLOW_THREADS
    rcode = walk(p, &rc, &acc);
    Py_END_ALLOW_THREADS
    if (rcode == 1) { PyErr_NoMemory(); goto done; }
    if (rcode == 2) { PyErr_SetString(PyExc_OverflowError, "_ckernel: rounding count overflow"); goto done; }
    {
        PyObject *items[11];
        items[0] = iv_tuple(acc.up_P); items[1] = iv_tuple(acc.up_X); items[2] = iv_tuple(acc.eq_P);
        items[3] = iv_tuple(acc.lo_P); items[4] = iv_tuple(acc.lo_X);
        items[5] = uf_tuple(acc.d_P); items[6] = uf_tuple(acc.d_E); items[7] = uf_tuple(acc.d_up);
        items[8] = uf_tuple(acc.d_lo);
        items[9] = PyLong_FromLongLong(acc.nodes); items[10] = PyLong_FromLongLong(acc.leaves);
        int ok = 1;
        for (int i = 0; i < 11; i++) if (!items[i]) ok = 0;
        if (ok) {
            result = PyTuple_New(12);
            if (result) {
                for (int i = 0; i < 11; i++) PyTuple_SET_ITEM(result, i, items[i]);
                PyTuple_SET_ITEM(result, 11, PyBool_FromLong(rcode == 3));
            }
        } else {
            for (int i = 0; i < 11; i++) Py_XDECREF(items[i]);
        }
    }
done:
    for (int i = 0; i < 9; i++) Py_XDECREF(s[i]);
    if (rc.lev) {
        for (int l = 1; l <= L; l++) {
            if (rc.lev[l].rows) {
                for (i64 m = 0; m <= n; m++) free_row_in(&rc, rc.lev[l].rows[m]);
                free(rc.lev[l].rows);
            }
            free(rc.lev[l].amode); free(rc.lev[l].acnt); free(rc.lev[l].apm); free(rc.lev[l].has);
            free(rc.lev[l].rk_lo); free(rc.lev[l].rk_hi); free(rc.lev[l].ik_lo); free(rc.lev[l].ik_hi);
            free(rc.lev[l].rk_ok); free(rc.lev[l].ik_ok);
        }
        free(rc.lev);
    }
    arena_close(&rc);
    free(rc.buf); free(rc.leaves); free(rc.rlo_); free(rc.rhi_); free(rc.rok); free(p);
    return result;
}

/* test hooks: the uf operations, for the Python-side checks */
static PyObject *py_uf_op(PyObject *self, PyObject *args) {
    const char *op; PyObject *oa, *ob; int up; unsigned long long k = 0;
    if (!PyArg_ParseTuple(args, "sOOi|K", &op, &oa, &ob, &up, &k)) return NULL;
    uf a, b = UF0;
    if (parse_uf(oa, &a)) return NULL;
    if (ob != Py_None && parse_uf(ob, &b)) return NULL;
    uf r;
    if (!strcmp(op, "mul")) r = uf_mul(a, b, up);
    else if (!strcmp(op, "add")) r = up ? uf_add(a, b, 1) : uf_add_dn(a, b);
    else if (!strcmp(op, "sub")) r = uf_sub(a, b, up);
    else if (!strcmp(op, "mulk")) r = uf_mul_u64(a, (u64)k, up);
    else if (!strcmp(op, "divk")) r = uf_div_u64(a, (u64)k, up);
    else { PyErr_SetString(PyExc_ValueError, "op"); return NULL; }
    return uf_tuple(r);
}

static PyMethodDef methods[] = {
    {"tail_sums", py_tail_sums, METH_VARARGS, "The certified tree walk (see exactdp.engine.ckernel)."},
    {"uf_op", py_uf_op, METH_VARARGS, "One 128-bit directed-rounding operation (for tests)."},
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "_ckernel",
    "Compiled certified kernel (see exactdp.engine.ckernel).", -1, methods};

PyMODINIT_FUNC PyInit__ckernel(void) {
    PyObject *mod = PyModule_Create(&moddef);
    if (mod) {
        PyModule_AddIntConstant(mod, "NL", NL);
        PyModule_AddIntConstant(mod, "MANTISSA_BITS", 128);
    }
    return mod;
}
