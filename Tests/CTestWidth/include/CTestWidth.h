// Nothing to call: CTestWidth only sets Swift Testing's parallelization width before main (width.c).
