print("sectionctl-bench")
