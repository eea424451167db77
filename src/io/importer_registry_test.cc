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

// The importer chosen for a file of these first bytes (and SQLite tables): the sure one, else
// the one that may read it, as ResolveImporter takes them.
const Importer* Chosen(const FileProbe& probe) {
  const io::Recognized r = RecognizeProbe(probe);
  return r.sure != nullptr ? r.sure : r.maybe;
}

TEST(ImporterRegistryTest, RecognizesEachFormatByContent) {
  const std::string sqlite("SQLite format 3\0......", 22);
  EXPECT_EQ(Chosen(FileProbe("a", sqlite, {"counters", "kernels", "meta", "strings"}))->name(),
            "native");
  EXPECT_EQ(Chosen(FileProbe("a", "{\"schemaVersion\": 1, \"traceEvents\": []}"))->name(),
            "kineto-json");
  EXPECT_EQ(Chosen(FileProbe("a", "[{\"ph\": \"X\"}]"))->name(), "kineto-json");
  EXPECT_EQ(Chosen(FileProbe("a", "\"Kind\",\"Agent_Id\",\"Kernel_Name\"\n"))->name(),
            "rocprofv3-csv");
  // Any other text is the CSV importer's to explain (its missing column).
  EXPECT_EQ(Chosen(FileProbe("a", "hello\n"))->name(), "rocprofv3-csv");
  // Any other SQLite file is the native importer's to explain (not a native trace).
  EXPECT_EQ(Chosen(FileProbe("a", sqlite, {"other"}))->name(), "native");
}

TEST(ImporterRegistryTest, EveryImporterHasItsOwnDetectionPriority) {
  const auto by_priority = ImportersByPriority();
  ASSERT_EQ(by_priority.size(), Importers().size());
  for (size_t i = 1; i < by_priority.size(); ++i) {
    EXPECT_GT(DetectionPriority(*by_priority[i - 1]), DetectionPriority(*by_priority[i]))
        << by_priority[i - 1]->name() << " before " << by_priority[i]->name();
  }
  for (const Importer* importer : Importers()) {
    EXPECT_GT(DetectionPriority(*importer), 0) << importer->name();
  }
  EXPECT_EQ(by_priority.front()->name(), "native");
  EXPECT_EQ(by_priority.back()->name(), "rocprofv3-csv");
}

// Files two importers are sure of: the higher priority wins, whatever the names' order.
TEST(ImporterRegistryTest, TiesGoToTheHigherPriority) {
  const std::string sqlite("SQLite format 3\0......", 22);
  const FileProbe native_and_nsys("a", sqlite, {"StringIds", "NVTX_EVENTS", "kernels", "meta"});
  const io::Recognized both = RecognizeProbe(native_and_nsys);
  ASSERT_NE(both.sure, nullptr);
  EXPECT_EQ(both.sure->name(), "native");
  EXPECT_EQ(FindImporter("nsys-sqlite")->Recognize(native_and_nsys), Recognition::kYes);

  const FileProbe nsys_and_rocpd("a", sqlite, {"StringIds", "NVTX_EVENTS", "rocpd_event"});
  EXPECT_EQ(FindImporter("rocpd")->Recognize(nsys_and_rocpd), Recognition::kYes);
  EXPECT_EQ(Chosen(nsys_and_rocpd)->name(), "nsys-sqlite");

  const FileProbe native_and_rocpd("a", sqlite, {"kernels", "meta", "rocpd_kernel_dispatch"});
  EXPECT_EQ(FindImporter("rocpd")->Recognize(native_and_rocpd), Recognition::kYes);
  EXPECT_EQ(Chosen(native_and_rocpd)->name(), "native");

  // A one-line Kineto trace whose first line holds a CSV header's word.
  const FileProbe json_and_csv("a", "{\"traceEvents\": [{\"name\": \"KernelName\"}]}");
  EXPECT_EQ(FindImporter("rocprofv3-csv")->Recognize(json_and_csv), Recognition::kYes);
  EXPECT_EQ(Chosen(json_and_csv)->name(), "kineto-json");
}

// Two maybes: the higher priority's; a sure one beats any maybe.
TEST(ImporterRegistryTest, ASureImporterBeatsAMaybeOfHigherPriority) {
  const std::string sqlite("SQLite format 3\0......", 22);
  const io::Recognized other = RecognizeProbe(FileProbe("a", sqlite, {"other"}));
  EXPECT_EQ(other.sure, nullptr);
  ASSERT_NE(other.maybe, nullptr);
  EXPECT_EQ(other.maybe->name(), "native");
  const io::Recognized rocpd = RecognizeProbe(FileProbe("a", sqlite, {"rocpd_event"}));
  ASSERT_NE(rocpd.sure, nullptr);
  EXPECT_EQ(rocpd.sure->name(), "rocpd");
  ASSERT_NE(rocpd.maybe, nullptr);
  EXPECT_EQ(rocpd.maybe->name(), "native");  // higher priority, but only a maybe
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
