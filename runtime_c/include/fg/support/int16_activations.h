/* Int16 sigmoid and tanh as TFLite computes them for 16-bit activations (its reference integer Logistic and Tanh on
 * int16): a 256-entry table of sigmoid(i / 24) in unsigned Q0.16, read by the absolute value of the rescaled input
 * and interpolated linearly; tanh(x) = 2 * sigmoid(2 * x) - 1 reads the same table. The input is rescaled first:
 * x * multiplier, rounded, >> shift (3 and 0 for a Q3.12 input, whose range the table's 3/4 factor maps onto). */
#ifndef FG_INT16_ACTIVATIONS_H
#define FG_INT16_ACTIVATIONS_H

#include <stdint.h>

/* sigmoid(i / 24) * 65536, saturated at 65535: the values TFLite's kernels use (not all are round(...) of the
 * real function, so they are data, not a formula). */
static const uint16_t fg_sigmoid_table_u16[256] = {
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794, 41432, 42064, 42688,
    43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409,
    51865, 52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110,
    61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186,
    63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900,
    64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208,
    65221, 65234, 65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433, 65438, 65442, 65445, 65449,
    65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
    65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
    65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530,
    65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535
};

/* The product wraps modulo 2^32 where it overflows, as TFLite's int32 arithmetic does on the targets it runs on. */
static inline int32_t fg_s16_rescaled_input(int16_t x, int32_t multiplier, int32_t shift) {
    const uint32_t round = shift > 0 ? (uint32_t)1 << (shift - 1) : 0u;
    return (int32_t)((uint32_t)(int32_t)x * (uint32_t)multiplier + round) >> shift;
}

static inline uint32_t fg_s16_magnitude(int32_t x) { return x < 0 ? 0u - (uint32_t)x : (uint32_t)x; }

/* sigmoid in Q0.15 of the input rescaled by fg_s16_rescaled_input (9 fractional bits index the table). */
static inline int16_t fg_logistic_s16_value(int16_t x, int32_t multiplier, int32_t shift) {
    const int32_t input = fg_s16_rescaled_input(x, multiplier, shift);
    const uint32_t magnitude = fg_s16_magnitude(input);
    const uint32_t index = magnitude >> 9;
    uint32_t result;
    if (index >= 255u) {
        result = (uint32_t)0x7FFF << 10;
    } else {
        const uint32_t lo = fg_sigmoid_table_u16[index], hi = fg_sigmoid_table_u16[index + 1];
        result = (lo << 9) + (magnitude & 0x1FFu) * (hi - lo);
    }
    result = input >= 0 ? result + (1u << 9) : (1u << 25) - result + (1u << 9) - 1u;
    return (int16_t)(result >> 10);
}

/* tanh in Q0.15 of the input rescaled by fg_s16_rescaled_input (8 fractional bits index the table). */
static inline int16_t fg_tanh_s16_value(int16_t x, int32_t multiplier, int32_t shift) {
    const int32_t input = fg_s16_rescaled_input(x, multiplier, shift);
    const uint32_t magnitude = fg_s16_magnitude(input);
    const uint32_t index = magnitude >> 8;
    int32_t result;
    if (index >= 255u) {
        result = 0xFFFF << 8;
    } else {
        const uint32_t lo = fg_sigmoid_table_u16[index], hi = fg_sigmoid_table_u16[index + 1];
        result = (int32_t)((lo << 8) + (magnitude & 0xFFu) * (hi - lo));
    }
    result = input >= 0 ? result - (1 << 23) + (1 << 7) : -result + (1 << 23) + (1 << 7) - 1;
    return (int16_t)(result >> 8);
}

#endif /* FG_INT16_ACTIVATIONS_H */
