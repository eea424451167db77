#include "src/io/importer_registry.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace decodeprof::io {
namespace {

TEST(ImporterRegistryTest, ListsEveryFormatOnceByName) {
  const auto all = Importers();
  ASSERT_GE(all.size(), 3u);
  for (size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1]->name(), all[i]->name());
  for (const Importer* importer : all) {
    EXPECT_EQ(FindImporter(importer->name()), importer);
    EXPECT_FALSE(importer->description().empty()) << importer->name();
    EXPECT_FALSE(importer->produced_by().empty()) << importer->name();
    EXPECT_FALSE(importer->default_pack().empty()) << importer->name();
  }
  EXPECT_EQ(FindImporter("nope"), nullptr);
}

TEST(ImporterRegistryTest, FormatChoicesStartWithAutoAndNameEveryImporter) {
  const std::string choices = FormatChoices();
  EXPECT_EQ(choices.rfind("auto|", 0), 0u);
  for (const Importer* importer : Importers()) {
    EXPECT_NE(choices.find("|" + std::string(importer->name())), std::string::npos);
  }
}

TEST(ImporterRegistryTest, UnknownFormatIsAUsageErrorListingTheChoices) {
  auto r = ResolveImporter("/nonexistent", "csv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), base::ErrorKind::kUsage);
  EXPECT_EQ(r.status().message(), "unknown --format 'csv'");
  EXPECT_NE(r.status().hint().find("rocprofv3-csv"), std::string::npos);
}

TEST(ImporterRegistryTest, AMissingFileIsAnIoError) {
  auto r = ResolveImporter("/nonexistent/trace", "auto");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().exit_code(), 66);
}

// The recognizer that says yes to each kind of file, given its first bytes.
const Importer* Recognized(const FileProbe& probe) {
  const Importer* maybe = nullptr;
  for (const Importer* importer : Importers()) {
    const Recognition r = importer->Recognize(probe);
    if (r == Recognition::kYes) return importer;
    if (r == Recognition::kMaybe && maybe == nullptr) maybe = importer;
  }
  return maybe;
}

TEST(ImporterRegistryTest, RecognizesEachFormatByContent) {
  const std::string sqlite("SQLite format 3\0......", 22);
  EXPECT_EQ(Recognized(FileProbe("a", sqlite, {"counters", "kernels", "meta", "strings"}))->name(),
            "native");
  EXPECT_EQ(Recognized(FileProbe("a", "{\"schemaVersion\": 1, \"traceEvents\": []}"))->name(),
            "kineto-json");
  EXPECT_EQ(Recognized(FileProbe("a", "[{\"ph\": \"X\"}]"))->name(), "kineto-json");
  EXPECT_EQ(Recognized(FileProbe("a", "\"Kind\",\"Agent_Id\",\"Kernel_Name\"\n"))->name(),
            "rocprofv3-csv");
  // Any other text is the CSV importer's to explain (its missing column).
  EXPECT_EQ(Recognized(FileProbe("a", "hello\n"))->name(), "rocprofv3-csv");
  // Any other SQLite file is the native importer's to explain (not a native trace).
  EXPECT_EQ(Recognized(FileProbe("a", sqlite, {"other"}))->name(), "native");
}

// docs/trace-formats.md holds the registry's table between its two markers;
// DECODEPROF_UPDATE_GOLDEN=1 rewrites it.
TEST(ImporterRegistryTest, TheDocsFormatTableIsTheRegistrys) {
  const std::string path = std::string(DECODEPROF_SOURCE_DIR) + "/docs/trace-formats.md";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string doc = buffer.str();
  const std::string begin = "<!-- format table: generated from the importer registry -->\n";
  const std::string end = "<!-- end of format table -->";
  const size_t a = doc.find(begin);
  const size_t b = doc.find(end);
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(b, std::string::npos);
  const std::string table = doc.substr(a + begin.size(), b - a - begin.size());
  if (std::getenv("DECODEPROF_UPDATE_GOLDEN") != nullptr) {
    doc.replace(a + begin.size(), b - a - begin.size(), FormatTableMarkdown());
    std::ofstream(path, std::ios::binary) << doc;
    return;
  }
  EXPECT_EQ(table, FormatTableMarkdown())
      << "docs/trace-formats.md is out of date: rerun with DECODEPROF_UPDATE_GOLDEN=1";
}

}  // namespace
}  // namespace decodeprof::io
