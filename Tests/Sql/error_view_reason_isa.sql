-- kvm_exit_reason_name() with an ISA that is neither VMX nor SVM.
SELECT kvm_exit_reason_name(1, 'arm');
