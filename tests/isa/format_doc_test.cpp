// isa/FORMAT.md is the reference a reader is written from: its opcode table must match the table
// the code is generated from, and its CRC statement must match the checksum the code uses.
#include <gtest/gtest.h>

#include <boost/crc.hpp>
#include <fstream>
#include <regex>
#include <sstream>

#include "isa/container.h"
#include "isa/encoding.h"

namespace nsim::isa {
namespace {

TEST(FormatDoc, OpcodeTableMatchesTheInstructionTable) {
    std::ifstream in(NSIM_ISA_FORMAT_DOC);
    ASSERT_TRUE(in) << NSIM_ISA_FORMAT_DOC;
    const std::regex row(R"(^\| (\d+) \| (\w+) \| .* \| (\d+) \|$)");
    std::string line;
    size_t rows = 0;
    while (std::getline(in, line)) {
        std::smatch m;
        if (!std::regex_match(line, m, row)) continue;
        const OpcodeInfo* op = find_opcode(uint16_t(std::stoi(m[1])));
        if (!op || op->mnemonic != m[2].str()) continue;  // another table of the document
        ++rows;
        EXPECT_EQ(encoded_size(*op), std::stoul(m[3])) << op->mnemonic;
    }
    EXPECT_EQ(rows, opcode_count());
}

TEST(FormatDoc, DescribesTheVersionTheWriterWrites) {
    std::ifstream in(NSIM_ISA_FORMAT_DOC);
    ASSERT_TRUE(in) << NSIM_ISA_FORMAT_DOC;
    std::stringstream text;
    text << in.rdbuf();
    std::smatch m;
    const std::string doc = text.str();
    ASSERT_TRUE(std::regex_search(doc, m, std::regex(R"(Format version described here: \*\*(\d+)\*\*)")));
    EXPECT_EQ(std::stoul(m[1]), kFormatVersion);
}

TEST(FormatDoc, Crc32CheckValue) {
    boost::crc_32_type crc;
    crc.process_bytes("123456789", 9);
    EXPECT_EQ(crc.checksum(), 0xCBF43926u);
}

}  // namespace
}  // namespace nsim::isa
