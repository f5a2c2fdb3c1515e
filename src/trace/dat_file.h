/* Constants of the trace-cmd .dat v7 file format shared by wblab's writer
 * and its reader of the files it writes. */
#ifndef WBLAB_DAT_FILE_H
#define WBLAB_DAT_FILE_H

enum {
	DAT_OPTION_DONE = 0,
	DAT_OPTION_BUFFER = 3,
	DAT_OPTION_UNAME = 5,
	DAT_OPTION_CPUCOUNT = 8,
	DAT_OPTION_VERSION = 9,
	DAT_OPTION_STRINGS = 15,
	DAT_OPTION_HEADER_INFO = 16,
	DAT_OPTION_EVENT_FORMATS = 18,
	DAT_OPTION_CMDLINES = 21,
};

#define DAT_SEC_COMPRESS 1   /* section flag */
#define DAT_CHUNK_PAGES 64   /* ring-buffer pages per compressed chunk (256 KiB) */
#define DAT_ZSTD_LEVEL 3

#endif
