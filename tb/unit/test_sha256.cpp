// SHA-256 (hw/common/sha256.*) against FIPS 180-4's examples, fed in pieces
// across block boundaries, and over a file.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "hw/common/error.hpp"
#include "hw/common/sha256.hpp"

namespace smshare {
namespace {

namespace fs = std::filesystem;

TEST(Sha256, FipsExamples) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, AMillionAsFedInPiecesOfEveryLength) {
  // FIPS 180-2 appendix B.3; pieces of 1..97 bytes cross every block boundary.
  Sha256 h;
  const std::string a(97, 'a');
  size_t fed = 0;
  for (size_t piece = 1; fed < 1000000; piece = piece % 97 + 1) {
    const size_t n = std::min(piece, 1000000 - fed);
    h.update(a.data(), n);
    fed += n;
  }
  EXPECT_EQ(h.hex_digest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, FileDigestEqualsTextDigestAndAMissingFileIsNamed) {
  const std::string path = "/tmp/smshare_sha_" + std::to_string(getpid());
  std::ofstream(path) << "abc";
  EXPECT_EQ(sha256_file_hex(path), sha256_hex("abc"));
  fs::remove(path);
  try {
    sha256_file_hex(path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace smshare
