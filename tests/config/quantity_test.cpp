// Units accepted in configs/ (configs/README.md): binary and decimal sizes, rates, clocks, times.
#include <gtest/gtest.h>

#include "config/pci_bdf.h"
#include "config/quantity.h"

namespace nsim::config {
namespace {

TEST(ConfigQuantity, SizesBinaryAndDecimal) {
    EXPECT_DOUBLE_EQ(*parse_quantity("32GiB", Quantity::bytes), 32.0 * (1ull << 30));
    EXPECT_DOUBLE_EQ(*parse_quantity("192 KiB", Quantity::bytes), 192.0 * 1024);
    EXPECT_DOUBLE_EQ(*parse_quantity("2GB", Quantity::bytes), 2e9);
    EXPECT_DOUBLE_EQ(*parse_quantity("4096", Quantity::bytes), 4096.0);
    EXPECT_FALSE(parse_quantity("32Gib", Quantity::bytes));
    EXPECT_FALSE(parse_quantity("-1GiB", Quantity::bytes));
    EXPECT_FALSE(parse_quantity("GiB", Quantity::bytes));
}

TEST(ConfigQuantity, RatesClocksTimesThroughputs) {
    EXPECT_DOUBLE_EQ(*parse_quantity("820GiB/s", Quantity::bytes_per_second), 820.0 * (1ull << 30));
    EXPECT_DOUBLE_EQ(*parse_quantity("2.9TB/s", Quantity::bytes_per_second), 2.9e12);
    EXPECT_DOUBLE_EQ(*parse_quantity("1.4GHz", Quantity::hertz), 1.4e9);
    EXPECT_DOUBLE_EQ(*parse_quantity("960MHz", Quantity::hertz), 960e6);
    EXPECT_DOUBLE_EQ(*parse_quantity("500ns", Quantity::seconds), 500e-9);
    EXPECT_DOUBLE_EQ(*parse_quantity("1.3us", Quantity::seconds), 1.3e-6);
    EXPECT_DOUBLE_EQ(*parse_quantity("92TFLOPS", Quantity::flops), 92e12);
    EXPECT_DOUBLE_EQ(*parse_quantity("190TOPS", Quantity::flops), 190e12);
    // A unit of another kind is an error, not a silent conversion.
    EXPECT_FALSE(parse_quantity("1.4GHz", Quantity::seconds));
    EXPECT_FALSE(parse_quantity("820GiB", Quantity::bytes_per_second));
}

TEST(ConfigPciBdf, ShortAndLongForms) {
    EXPECT_EQ(canonical_pci_bdf("10:1c.0"), "10:1c.0");
    EXPECT_EQ(canonical_pci_bdf("0000:A0:1D.0"), "a0:1d.0");
    EXPECT_EQ(canonical_pci_bdf("0001:a0:1d.0"), "0001:a0:1d.0");
    EXPECT_FALSE(canonical_pci_bdf("a0:1d"));
    EXPECT_FALSE(canonical_pci_bdf("a0:20.0"));  // device numbers stop at 0x1f
    EXPECT_FALSE(canonical_pci_bdf("a0:1d.8"));  // function numbers stop at 7
}

}  // namespace
}  // namespace nsim::config
