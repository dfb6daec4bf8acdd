// Four threads make the first calls into each of the five C modules at once (libcurl's and
// libarchive's forwarders, libplist's, zlib's and libdeflate's), compiled by
// LibraryLoaderRaceTests with ThreadSanitizer together with the modules' own sources: the first
// load and the tables it fills must be free of data races (CurlTransport runs requests on
// several threads). Prints one line per library: its description.
#include <archive.h>
#include <curl/curl.h>
#include <libdeflate.h>
#include <plist/plist.h>
#include <pthread.h>
#include <stdio.h>
#include <zlib.h>

const char *ccurl_description(void);
const char *carchive_description(void);
const char *cplist_description(void);
const char *czlib_description(void);
const char *cdeflate_description(void);

static pthread_barrier_t start;

static void *work(void *unused) {
    (void)unused;
    pthread_barrier_wait(&start);
    for (int i = 0; i < 50; i++) {
        curl_slist_free_all(curl_slist_append(NULL, "A: b"));
        curl_easy_cleanup(curl_easy_init());
        archive_read_free(archive_read_new());
        plist_free(plist_new_dict());
        (void)crc32(0, (const Bytef *)"x", 1);
        (void)libdeflate_crc32(0, "x", 1);
    }
    return NULL;
}

int main(void) {
    enum { count = 4 };
    pthread_t threads[count];
    pthread_barrier_init(&start, NULL, count);
    for (int i = 0; i < count; i++) pthread_create(&threads[i], NULL, work, NULL);
    for (int i = 0; i < count; i++) pthread_join(threads[i], NULL);
    printf("%s\n%s\n%s\n%s\n%s\n", ccurl_description(), carchive_description(), cplist_description(),
           czlib_description(), cdeflate_description());
    return 0;
}
