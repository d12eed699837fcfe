package ppg;

/**
 * The C API's enumerations (include/ppg.h), shared by {@link Ppg} (which implements this
 * interface, so {@code Ppg.PPG_METHOD_PPG}) and the JNA mapping {@link PpgLibrary} (so its
 * users' {@code PpgLibrary.PPG_METHOD_PPG} still compiles). A class of its own because
 * {@link PpgLibrary} needs JNA to compile against and the FFM binding does not.
 */
public interface PpgConstants {
  // ppg_status
  int PPG_STATUS_OK = 0;
  int PPG_STATUS_NULL_PARAMETER = 1;
  int PPG_STATUS_INVALID_ARGUMENT = 2;
  int PPG_STATUS_CAPACITY = 3;
  int PPG_STATUS_MEMORY_TOO_SMALL = 4;
  int PPG_STATUS_MISALIGNED = 5;
  int PPG_STATUS_NOT_PERMUTATION = 6;
  int PPG_STATUS_ITEM_OUT_OF_RANGE = 7;
  int PPG_STATUS_DUPLICATE_ITEM = 8;
  int PPG_STATUS_UNKNOWN_ITEM = 9;
  int PPG_STATUS_NOT_FINITE = 10;
  int PPG_STATUS_NO_QUERY = 11;
  int PPG_STATUS_NO_PENDING_BATCH = 12;
  int PPG_STATUS_UNKNOWN_SAMPLE = 13;
  int PPG_STATUS_UNSUPPORTED = 14;
  int PPG_STATUS_NO_RESULT = 15;
  int PPG_STATUS_ALLOCATION_FAILED = 16;
  int PPG_STATUS_PANIC = 17;
  int PPG_STATUS_VERSION_MISMATCH = 18;

  // ppg_method, ppg_sampler, ppg_gradient, ppg_metric, ppg_rank_start
  int PPG_METHOD_PPG = 0;
  int PPG_METHOD_PL = 1;
  int PPG_SAMPLER_UNCORRECTED = 0;
  int PPG_SAMPLER_CORRECTED = 1;
  int PPG_GRADIENT_APPROXIMATE = 0;
  int PPG_GRADIENT_EXACT = 1;
  int PPG_METRIC_DTR = 0;
  int PPG_METRIC_EEL = 1;
  int PPG_METRIC_NDCG = 2;
  int PPG_METRIC_DTR_NDCG_MIX = 3;
  int PPG_METRIC_EEL_NDCG_MIX = 4;
  int PPG_METRIC_EXPECTED_EXPOSURE = 5;
  int PPG_METRIC_AWRF = 6;
  int PPG_RANK_START_ZERO = 0;
  int PPG_RANK_START_ONE = 1;
}
