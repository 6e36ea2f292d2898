/* A dependency the reliability tests link a driver against, then delete (missing DT_NEEDED). */
__attribute__((visibility("default"))) int reliab_gone(void) { return 1; }
