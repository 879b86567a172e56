/*
 * Comparison of replayed bytes with a captured image (see rpl/snapshot.h).
 * Elements are read little endian (the byte order of every GPU and host
 * this runs on).  f16 and bf16 are widened by hand: both convert exactly
 * to double.
 */
#include <math.h>
#include <string.h>

#include "rpl/snapshot.h"

/*
 * Defaults for a candidate that may reassociate arithmetic; replaying the
 * captured code object gives identical bits anyway.  f16/bf16 follow
 * torch.testing's defaults (about one unit in the last place of the
 * type); f32 allows about 80 ulp (1e-5), enough for a reordered
 * reduction of thousands of terms of one sign, and f64 1e-10.
 */
rpl_tolerance rpl_compare_tolerance_default(rpl_dtype t)
{
    switch (t) {
    case RPL_DTYPE_F16:
        return (rpl_tolerance){1e-3, 1e-5};
    case RPL_DTYPE_BF16:
        return (rpl_tolerance){1.6e-2, 1e-5};
    case RPL_DTYPE_F32:
        return (rpl_tolerance){1e-5, 1e-6};
    case RPL_DTYPE_F64:
        return (rpl_tolerance){1e-10, 1e-12};
    default:
        return (rpl_tolerance){0, 0};
    }
}

void rpl_compare_init(rpl_compare_state *st, rpl_dtype dtype, rpl_tolerance tol)
{
    memset(st, 0, sizeof(*st));
    st->dtype = dtype;
    st->tol = tol;
}

static uint64_t load_bits(const unsigned char *p, size_t n)
{
    uint64_t v = 0;

    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static double half_to_double(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1f;
    double mant = h & 0x3ff, v;

    if (exp == 0x1f)
        v = mant != 0 ? NAN : INFINITY;
    else if (exp == 0)
        v = ldexp(mant, -24); /* subnormal: mant * 2^-14 / 2^10 */
    else
        v = ldexp(mant + 1024, exp - 25);
    return sign ? -v : v;
}

static double bits_to_double(rpl_dtype t, uint64_t bits)
{
    union {
        uint32_t u;
        float f;
    } f32;
    union {
        uint64_t u;
        double d;
    } f64;

    switch (t) {
    case RPL_DTYPE_I8:
        return (double)(int8_t)bits;
    case RPL_DTYPE_I16:
        return (double)(int16_t)bits;
    case RPL_DTYPE_I32:
        return (double)(int32_t)bits;
    case RPL_DTYPE_I64:
        return (double)(int64_t)bits;
    case RPL_DTYPE_F16:
        return half_to_double((uint16_t)bits);
    case RPL_DTYPE_BF16:
        f32.u = (uint32_t)bits << 16;
        return f32.f;
    case RPL_DTYPE_F32:
        f32.u = (uint32_t)bits;
        return f32.f;
    case RPL_DTYPE_F64:
        f64.u = bits;
        return f64.d;
    default: /* bytes and unsigned integers */
        return (double)bits;
    }
}

static bool is_float(rpl_dtype t)
{
    return t == RPL_DTYPE_F16 || t == RPL_DTYPE_BF16 || t == RPL_DTYPE_F32 || t == RPL_DTYPE_F64;
}

/* Whether a floating-point element passes; updates the error maxima. */
static bool float_close(rpl_compare_state *st, double got, double want)
{
    double diff;

    if (isnan(got) || isnan(want))
        return isnan(got) && isnan(want);
    if (isinf(got) || isinf(want))
        return got == want;
    diff = fabs(got - want);
    if (diff > st->max_abs_err)
        st->max_abs_err = diff;
    if (want != 0 && diff / fabs(want) > st->max_rel_err)
        st->max_rel_err = diff / fabs(want);
    return diff <= st->tol.atol + st->tol.rtol * fabs(want);
}

static void record_mismatch(rpl_compare_state *st, rpl_dtype t, uint64_t addr, uint64_t got,
                            uint64_t want)
{
    st->mismatches++;
    if (st->have_first)
        return;
    st->have_first = true;
    st->first_addr = addr;
    st->first_got_bits = got;
    st->first_want_bits = want;
    st->first_got = bits_to_double(t, got);
    st->first_want = bits_to_double(t, want);
}

void rpl_compare_chunk(rpl_compare_state *st, uint64_t addr, const void *got, const void *want,
                       size_t len)
{
    const unsigned char *g = got, *w = want;
    const size_t esize = rpl_dtype_size(st->dtype);
    const size_t n = len / esize, body = n * esize;
    const bool fp = is_float(st->dtype);

    if (memcmp(g, w, len) == 0) {
        st->elements += n + (len - body);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const unsigned char *gp = g + i * esize, *wp = w + i * esize;
        uint64_t gb, wb;

        if (memcmp(gp, wp, esize) == 0)
            continue;
        gb = load_bits(gp, esize);
        wb = load_bits(wp, esize);
        if (fp && float_close(st, bits_to_double(st->dtype, gb), bits_to_double(st->dtype, wb)))
            continue;
        record_mismatch(st, st->dtype, addr + i * esize, gb, wb);
    }
    /* A region's tail shorter than one element is compared byte by byte. */
    for (size_t i = body; i < len; i++)
        if (g[i] != w[i])
            record_mismatch(st, RPL_DTYPE_U8, addr + i, g[i], w[i]);
    st->elements += n + (len - body);
}
