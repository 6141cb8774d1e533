// A SQLite database made by a test from SQL statements, in a temporary folder removed at the end: the
// Nsight Systems exports (and hostile look-alikes) that the nsys reader and the cross-check are tested on.
#pragma once

#include <sqlite3.h>
#include <unistd.h>
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace tl::test {

// The tables of an export, as the exporter of schema 3.x creates them (only the columns the reader asks for).
inline constexpr const char* kExportTables = R"sql(
CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.0');
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, deviceId INT, streamId INT, correlationId INT,
                                        globalPid INT, demangledName INT);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, globalTid INT, correlationId INT, nameId INT);
CREATE TABLE NVTX_EVENTS(start INT, end INT, eventType INT, text TEXT, globalTid INT, textId INT, domainId INT);
)sql";

class TempDb {
 public:
  explicit TempDb(const std::string& name) {
    dir_ = std::filesystem::temp_directory_path() /
           std::filesystem::path("tl_nsys_" + std::to_string(::getpid()) + "_" + name);
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / (name + ".sqlite")).string();
  }
  ~TempDb() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  TempDb(const TempDb&) = delete;
  TempDb& operator=(const TempDb&) = delete;
  const std::string& path() const { return path_; }
  const std::filesystem::path& dir() const { return dir_; }
  void Exec(const std::string& sql) const {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path_.c_str(), &db) == SQLITE_OK);
    char* message = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
    INFO((message != nullptr ? message : ""));
    sqlite3_free(message);
    sqlite3_close(db);
    REQUIRE(rc == SQLITE_OK);
  }

 private:
  std::filesystem::path dir_;
  std::string path_;
};

}  // namespace tl::test
