-- syscall_name() of every number from -1 to 599 that has a name,
-- syscall_nr() back from each name; kvm_exit_reason_name() of a few codes.
.nullvalue NULL
WITH RECURSIVE n(i) AS (SELECT -1 UNION ALL SELECT i + 1 FROM n WHERE i < 599)
SELECT i, syscall_name(i) FROM n WHERE syscall_name(i) IS NOT NULL;
WITH RECURSIVE n(i) AS (SELECT -1 UNION ALL SELECT i + 1 FROM n WHERE i < 599)
SELECT count(*) FROM n
WHERE syscall_name(i) IS NOT NULL AND syscall_nr(syscall_name(i)) != i;
SELECT syscall_name(NULL), syscall_name('x'), syscall_nr('no_such_call'),
       syscall_nr(NULL), syscall_name(1.0), syscall_name('59');
SELECT kvm_exit_reason_name(48, 'vmx'), kvm_exit_reason_name(48, 1),
       kvm_exit_reason_name(0x7b, 'SVM'), kvm_exit_reason_name(0x7b, 2),
       kvm_exit_reason_name(0x80000021, 'vmx'),
       kvm_exit_reason_name(0x10002, 'vmx'), kvm_exit_reason_name(5, 'vmx'),
       kvm_exit_reason_name(-1, 'svm'), kvm_exit_reason_name(0xffffffff, 'svm'),
       kvm_exit_reason_name(NULL, 'vmx'), kvm_exit_reason_name(12, NULL);
