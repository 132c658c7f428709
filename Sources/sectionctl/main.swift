import SectionCLI

SectionCLI.main()
