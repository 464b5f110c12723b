-- The exit-reason histogram of the kvmtrace sample: the reason is the exit
-- code in hex, decoded as VMX and as SVM.
.output /dev/null
SELECT tracestore_attach('@WORK@/s.trace');
.output
SELECT reason, exit_code, vmx_name, svm_name, count, unpaired, total_dur,
       min_dur, max_dur, p50_dur, p90_dur, p99_dur
FROM kvm_exit_reasons ORDER BY reason, exit_code;
